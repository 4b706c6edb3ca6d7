// The API objects of drafts and scheduled messages, as endpoints, register and events show them.
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
