// Scheduled messages (spec endpoint 3 and the rest; Zulip's send-later): checked as a message is
// when scheduled and again when sent, delivered by the realm actor at their time, and moved through
// the scheduled-message lifecycle machine. Events go to the sender's clients only.
import { normalizeTopic } from '../../messages/emptyTopic.js';
import { ApiError, errors } from '../../errors.js';
import { move } from '../../machines/lifecycle.js';
import { scheduledLifecycle, type ScheduledEvent } from '../../machines/scheduled.js';
import type { ScheduledMessageRecord } from '../../messages/records.js';
import type { UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { prepareMessage, sendMessage, storeMessage, type PreparedMessage } from './messages.js';
import { globalTime } from '../../messages/noticeText.js';
import { reminderView, scheduledMessageView } from '../../messages/objects.js';

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: a message this late is not sent. */
const LATE_CUTOFF_SECONDS = 10 * 60;

export type ScheduledType = 'stream' | 'private';

export interface ScheduleInput {
  type: ScheduledType;
  to: number | number[];
  topic: string | null;
  content: string;
  deliverAt: number;
  /** null: the sending client's default, except for a message to oneself. */
  readBySender: boolean | null;
  clientReadsBySender: boolean;
  client: string;
}

export interface RescheduleInput {
  id: number;
  type?: ScheduledType;
  to?: number | number[];
  topic?: string;
  content?: string;
  deliverAt?: number;
  client: string;
}

export function checkFuture(ctx: CommandContext, deliverAt: number): void {
  if (deliverAt <= ctx.now) throw errors.badRequest('Scheduled delivery time must be in the future.');
}

/** The addressee of a scheduled message as sending takes it: one channel ID, or user IDs. */
function addressee(type: ScheduledType, to: number | number[]): number[] {
  const ids = typeof to === 'number' ? [to] : to;
  if (type === 'stream' && ids.length !== 1) throw errors.badRequest('Invalid data type for channel ID');
  return ids;
}

/** What GET /scheduled_messages shows as `to`: the channel, or the other participants (oneself for
 * a message to oneself). */
export function storedTo(sender: UserRecord, prepared: PreparedMessage): number | number[] {
  if (prepared.channel) return prepared.channel.id;
  const others = prepared.participants.filter((id) => id !== sender.id);
  return others.length > 0 ? others : [sender.id];
}

function own(ctx: CommandContext, sender: UserRecord, id: number): ScheduledMessageRecord {
  const message = ctx.store.scheduledMessages.get(ctx.ownerOf(sender.id), id);
  if (!message || message.reminderFor !== undefined) throw errors.badRequest('Scheduled message does not exist');
  return message;
}

/** The message's state after the event, or undefined when its lifecycle refuses it. */
function nextState(message: ScheduledMessageRecord, event: ScheduledEvent) {
  const outcome = move(scheduledLifecycle, message.state, event);
  return 'to' in outcome ? outcome.to : undefined;
}

/** The user's scheduled messages (reminders: true, their reminders), earliest first. */
export const userScheduled = (ctx: ReadContext, userId: number, reminders = false): ScheduledMessageRecord[] =>
  ctx.store.scheduledMessages
    .ofOwner(ctx.ownerOf(userId))
    .filter((message) => (message.reminderFor !== undefined) === reminders)
    .sort((a, b) => a.deliverAt - b.deliverAt || a.id - b.id);

/** Tells the owner's clients that a scheduled message or reminder changed or went. Reminders have no
 * update event: a changed one is removed and added again. */
function announce(ctx: CommandContext, message: ScheduledMessageRecord, change: 'update' | 'remove'): void {
  if (message.reminderFor === undefined) {
    ctx.emit(change === 'update' ? { type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageView(message) } : { type: 'scheduled_messages', op: 'remove', scheduled_message_id: message.id }, [message.senderId]);
    return;
  }
  ctx.emit({ type: 'reminders', op: 'remove', reminder_id: message.id }, [message.senderId]);
  if (change === 'update') ctx.emit({ type: 'reminders', op: 'add', reminders: [reminderView(message)] }, [message.senderId]);
}

/** Marks a scheduled message failed, tells the sender's clients, and has the notification bot tell
 * the sender why (not when the sender is deactivated: nobody would read it). */
function fail(ctx: CommandContext, message: ScheduledMessageRecord, reason: string): void {
  if (nextState(message, { type: 'scheduled.fail' }) !== 'failed') return;
  const failed: ScheduledMessageRecord = { ...message, state: 'failed', failureMessage: reason };
  ctx.save('scheduledMessage', failed);
  const sender = ctx.state.users.get(message.senderId);
  if (!sender?.isActive) return;
  announce(ctx, failed, 'update');
  const botId = ctx.state.realm.notificationBotId;
  const bot = botId === null ? undefined : ctx.state.users.get(botId);
  if (!bot) return;
  const what = message.reminderFor === undefined ? 'The message you scheduled' : 'The reminder you scheduled';
  sendMessage(ctx, bot, {
    type: 'private',
    to: [sender.id],
    topic: null,
    content: `${what} for ${globalTime(message.deliverAt)} was not sent because of the following error:\n\n> ${reason}\n\n[View scheduled messages](#scheduled)`,
    readBySender: true,
    client: 'Internal',
  });
}

/** The message as it would be sent now, or why it cannot be: the sender, the lateness, and every
 * check of sending again (rights, the channel, names in the text are as they are now). */
function readyToSend(ctx: CommandContext, message: ScheduledMessageRecord): { sender: UserRecord; prepared: PreparedMessage } | { reason: string } {
  const owner = ctx.state.users.get(message.senderId);
  if (!owner?.isActive) return { reason: 'Account is deactivated' };
  if (ctx.now > message.deliverAt + LATE_CUTOFF_SECONDS) return { reason: 'Message could not be sent at the scheduled time.' };
  // A reminder comes from the notification bot, to its owner.
  const botId = ctx.state.realm.notificationBotId;
  const sender = message.reminderFor === undefined ? owner : botId === null ? undefined : ctx.state.users.get(botId);
  if (!sender) return { reason: 'Notification bot is missing' };
  try {
    return { sender, prepared: prepareMessage(ctx, sender, { type: message.type, to: addressee(message.type, message.to), topic: message.topic, content: message.content }) };
  } catch (error) {
    if (error instanceof ApiError) return { reason: error.message };
    throw error;
  }
}

export const scheduledCommands = {
  'scheduled.list': readCommand((ctx) => userScheduled(ctx, ctx.user.id).map(scheduledMessageView)),

  'scheduled.create': writeCommand((ctx, input: ScheduleInput) => {
    const sender = ctx.user;
    checkFuture(ctx, input.deliverAt);
    const prepared = prepareMessage(ctx, sender, { type: input.type, to: addressee(input.type, input.to), topic: input.topic, content: input.content });
    const toSelf = prepared.type === 'private' && prepared.participants.length === 1;
    const message: ScheduledMessageRecord = {
      id: ctx.store.nextId('scheduled'),
      senderId: sender.id,
      type: prepared.type,
      to: storedTo(sender, prepared),
      topic: prepared.topic,
      content: prepared.content,
      renderedContent: prepared.rendered.html,
      deliverAt: input.deliverAt,
      readBySender: input.readBySender ?? (input.clientReadsBySender && !toSelf),
      client: input.client,
      state: 'scheduled',
      failureMessage: null,
    };
    ctx.save('scheduledMessage', message);
    ctx.emit({ type: 'scheduled_messages', op: 'add', scheduled_messages: [scheduledMessageView(message)] }, [sender.id]);
    return { scheduled_message_id: message.id };
  }),

  'scheduled.update': writeCommand((ctx, input: RescheduleInput) => {
    const sender = ctx.user;
    if (input.type === undefined && input.to === undefined && input.topic === undefined && input.content === undefined && input.deliverAt === undefined) {
      throw errors.badRequest('Nothing to change');
    }
    if (input.type !== undefined && input.to === undefined) throw errors.badRequest('Recipient required when updating type of scheduled message.');
    if (input.type === 'stream' && input.topic === undefined) throw errors.badRequest('Topic required when updating scheduled message type to stream.');
    if (input.deliverAt !== undefined) checkFuture(ctx, input.deliverAt);
    const message = own(ctx, sender, input.id);
    // A failed message is rescheduled only by an edit that gives it a new time.
    if (nextState(message, { type: 'scheduled.edit', newTime: input.deliverAt !== undefined }) !== 'scheduled') {
      throw errors.badRequest('Scheduled delivery time must be in the future.');
    }
    let updated: ScheduledMessageRecord = { ...message, deliverAt: input.deliverAt ?? message.deliverAt, client: input.client, state: 'scheduled', failureMessage: null };
    const readdressed = input.type !== undefined || input.to !== undefined;
    const topicOnly = !readdressed && input.topic !== undefined && message.type === 'stream';
    if (readdressed || topicOnly || input.content !== undefined) {
      // The message as it will now be sent is checked again as a whole, as sending would.
      const type = input.type ?? message.type;
      // Made a channel message, it needs a real topic: not empty, "(no topic)" or the display name.
      if (input.type === 'stream' && normalizeTopic(input.topic ?? '') === '') throw errors.badRequest("Topic can't be empty when updating scheduled message type to channel.");
      const prepared = prepareMessage(ctx, sender, {
        type,
        to: addressee(type, input.to ?? message.to),
        topic: input.topic ?? message.topic,
        content: input.content ?? message.content,
      });
      updated = { ...updated, type: prepared.type, to: storedTo(sender, prepared), topic: prepared.topic, content: prepared.content, renderedContent: prepared.rendered.html };
    }
    ctx.save('scheduledMessage', updated);
    ctx.emit({ type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageView(updated) }, [sender.id]);
    return {};
  }),

  'scheduled.delete': writeCommand((ctx, input: { id: number }) => {
    const message = own(ctx, ctx.user, input.id);
    ctx.remove('scheduledMessage', message);
    announce(ctx, message, 'remove');
    return {};
  }),

  /** Run by the realm actor when the message's time has come: sends it as its sender, or fails it. */
  'scheduled.deliver': writeCommand((ctx, input: { id: number; senderId: number }) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    const message = ctx.store.scheduledMessages.get(ctx.ownerOf(input.senderId), input.id);
    if (!message || message.deliverAt > ctx.now || nextState(message, { type: 'scheduled.send' }) !== 'sent') return {};
    const ready = readyToSend(ctx, message);
    if ('reason' in ready) {
      fail(ctx, message, ready.reason);
      return {};
    }
    storeMessage(ctx, ready.sender, ready.prepared, { readBySender: message.readBySender, client: message.client });
    ctx.remove('scheduledMessage', message);
    announce(ctx, message, 'remove');
    return {};
  }),

  /** Run by the realm actor when delivery failed unexpectedly (the failure was logged). */
  'scheduled.fail': writeCommand((ctx, input: { id: number; senderId: number; reason: string }) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    const message = ctx.store.scheduledMessages.get(ctx.ownerOf(input.senderId), input.id);
    if (message) fail(ctx, message, input.reason);
    return {};
  }),
};

export const scheduledInitialState = (ctx: ReadContext) => ({ scheduled_messages: userScheduled(ctx, ctx.user.id).map(scheduledMessageView) });
