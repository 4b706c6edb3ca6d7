// The API objects of drafts, scheduled messages and reminders, as endpoints, register and events show them.
import type { DraftRecord, ScheduledMessageRecord } from './records.js';

export const draftView = (draft: DraftRecord) => ({ id: draft.id, type: draft.type, to: draft.to, topic: draft.topic, content: draft.content, timestamp: draft.timestamp });

export const scheduledMessageView = (message: ScheduledMessageRecord) => ({
  scheduled_message_id: message.id,
  type: message.type,
  to: message.to,
  ...(message.type === 'stream' ? { topic: message.topic } : {}),
  content: message.content,
  rendered_content: message.renderedContent,
  scheduled_delivery_timestamp: message.deliverAt,
  failed: message.state === 'failed',
});

export const reminderView = (reminder: ScheduledMessageRecord) => ({
  reminder_id: reminder.id,
  type: 'private' as const,
  to: [reminder.senderId],
  content: reminder.content,
  rendered_content: reminder.renderedContent,
  scheduled_delivery_timestamp: reminder.deliverAt,
  failed: reminder.state === 'failed',
  reminder_target_message_id: reminder.reminderFor ?? 0,
});
