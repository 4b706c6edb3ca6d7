// Reminders (Zulip's scheduled messages of delivery type REMIND): a direct message the notification
// bot sends to the user at a chosen time about a message they can read, quoting it. They are kept,
// delivered, failed and restored with the scheduled messages (scheduled.ts); events go to the
// user's own clients.
import { errors } from '../../errors.js';
import { messageUrl } from '../../messages/links.js';
import { listed, messageLinkSyntax, silentMention, truncated, unusedFence } from '../../messages/noticeText.js';
import { reminderView } from '../../messages/objects.js';
import type { MessageRecord, ScheduledMessageRecord } from '../../messages/records.js';
import { realmUrl } from '../../organization/records.js';
import { readCommand, writeCommand, type ReadContext } from '../context.js';
import { limits } from './limits.js';
import { accessibleMessage } from './messageAccess.js';
import { prepareMessage } from './messages.js';
import { checkFuture, storedTo, userScheduled } from './scheduled.js';

/** Zulip's MAX_REMINDER_NOTE_LENGTH. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;


export interface ReminderInput {
  messageId: number;
  deliverAt: number;
  note?: string;
  client: string;
}

/** The reminder's text as Zulip writes it: what was requested (with the note quoted), who said it
 * where with a link to the message, and the message quoted (polls and to-do lists only named). */
function reminderContent(ctx: ReadContext, message: MessageRecord, rawNote: string | undefined): string {
  const note = rawNote?.trimEnd().replace(/^\n+/, '');
  if (note !== undefined && note.length > MAX_REMINDER_NOTE_LENGTH) throw errors.badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  const author = ctx.state.users.get(message.senderId);
  const who = silentMention(author ?? { fullName: 'Unknown user', id: message.senderId });
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  const link = `[said](${messageUrl(realmUrl(ctx.state.realm, ctx.config), message, channel?.name)})`;
  const what = channel ? 'message' : 'direct message';
  let content = note ? `You requested a reminder for the following ${what}. Note:\n > ${note}\n\n` : `You requested a reminder for the following ${what}.\n\n`;
  let where: string;
  if (channel) where = `in ${messageLinkSyntax(channel.name, message.topic, message.id)}`;
  else {
    const others = message.participants.filter((id) => id !== message.senderId);
    const shown = (others.length > 0 ? others : [message.senderId]).map((id) => silentMention(ctx.state.users.get(id) ?? { fullName: 'Unknown user', id }));
    where = `to ${listed(shown)}`;
  }
  const widget = message.content.startsWith('/poll') ? 'poll' : message.content.startsWith('/todo') ? 'todo list' : undefined;
  if (widget !== undefined) return `${content}${who} ${link.replace('[said]', '[sent]')} a ${widget} ${where}.`;
  content += `${who} ${link} ${where}:\n`;
  const fence = unusedFence(message.content);
  const room = limits.max_message_length - content.length - `${fence}quote\n\n${fence}`.length;
  return `${content}${fence}quote\n${truncated(message.content, room)}\n${fence}`;
}

export const reminderCommands = {
  'reminders.list': readCommand((ctx) => userScheduled(ctx, ctx.user.id, true).map(reminderView)),

  'reminders.create': writeCommand((ctx, input: ReminderInput) => {
    const owner = ctx.user;
    checkFuture(ctx, input.deliverAt);
    const { message } = accessibleMessage(ctx, owner, input.messageId);
    // Checked as a message from the user to themself, as Zulip checks it; the bot sends it later.
    const prepared = prepareMessage(ctx, owner, { type: 'private', to: [owner.id], topic: null, content: reminderContent(ctx, message, input.note) });
    const reminder: ScheduledMessageRecord = {
      id: ctx.store.nextId('scheduled'),
      senderId: owner.id,
      type: 'private',
      to: storedTo(owner, prepared),
      topic: prepared.topic,
      content: prepared.content,
      renderedContent: prepared.rendered.html,
      deliverAt: input.deliverAt,
      readBySender: false,
      client: input.client,
      state: 'scheduled',
      failureMessage: null,
      reminderFor: message.id,
    };
    ctx.save('scheduledMessage', reminder);
    ctx.emit({ type: 'reminders', op: 'add', reminders: [reminderView(reminder)] }, [owner.id]);
    return { reminder_id: reminder.id };
  }),

  'reminders.delete': writeCommand((ctx, input: { id: number }) => {
    const reminder = ctx.store.scheduledMessages.get(ctx.ownerOf(ctx.user.id), input.id);
    if (reminder?.reminderFor === undefined) throw errors.reminderNotFound();
    ctx.remove('scheduledMessage', reminder);
    ctx.emit({ type: 'reminders', op: 'remove', reminder_id: reminder.id }, [ctx.user.id]);
    return {};
  }),
};

export const remindersInitialState = (ctx: ReadContext) => ({ reminders: userScheduled(ctx, ctx.user.id, true).map(reminderView) });
