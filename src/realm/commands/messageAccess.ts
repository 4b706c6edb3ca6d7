// Who may read a message (Zulip's access_message): whoever holds it (received it, or was subscribed
// when it was sent), or a reader of a channel whose history its subscribers see. Fetching, editing,
// reacting to a message and downloading a file a message links to all follow this rule.
import { canReadChannel } from '../../channels/access.js';
import { errors } from '../../errors.js';
import type { NarrowLookup } from '../../messages/narrow.js';
import type { MessageRecord } from '../../messages/records.js';
import type { UserRecord } from '../../users/records.js';
import type { ReadContext } from '../context.js';
import { rowHolders } from './rowHolders.js';

/** The viewer's flags on the message (undefined: readable without holding it), or null when the
 * viewer may not read it. */
export function messageAccess(ctx: Pick<ReadContext, 'state' | 'store'>, viewer: UserRecord, message: MessageRecord): { flags: number | undefined } | null {
  if (message.realmId !== ctx.state.realm.id) return null;
  const flags = ctx.store.userMessages.get(viewer.id, message.recipientId, message.id);
  if (flags !== undefined) return { flags };
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  return channel !== undefined && channel.historyPublicToSubscribers && canReadChannel(ctx.state, channel, viewer) ? { flags: undefined } : null;
}

export interface AccessibleMessage {
  message: MessageRecord;
  /** The user's flags on it; undefined when they read it through the channel's history. */
  flags: number | undefined;
}

/** The message by ID if the user may read it; otherwise Zulip's "Invalid message(s)". */
export function accessibleMessage(ctx: ReadContext, user: UserRecord, messageId: number): AccessibleMessage {
  const message = ctx.store.messages.get(messageId);
  const access = message && messageAccess(ctx, user, message);
  if (!message || !access) throw errors.badRequest('Invalid message(s)');
  return { message, flags: access.flags };
}

/** Who hears of a change to a message (a reaction, a submessage): those who received it, the
 * subscribers of a channel whose history they can read, and the acting user (Zulip's
 * event_recipient_ids_for_action_on_messages). */
export function messageAudience(ctx: ReadContext, message: MessageRecord, actorId: number): number[] {
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  const ids = new Set<number>([actorId]);
  for (const userId of rowHolders(ctx, message)) {
    const sharedHistory = channel !== undefined && channel.historyPublicToSubscribers && ctx.state.isSubscribed(channel.id, userId);
    const received = ctx.store.userMessages.get(userId, message.recipientId, message.id) !== undefined;
    if (ctx.state.users.get(userId)?.isActive && (sharedHistory || received)) ids.add(userId);
  }
  return [...ids];
}

/** What resolving a narrow reads for the viewer beyond the realm's state (narrow.ts). */
export const narrowLookup = (ctx: ReadContext, viewer: UserRecord): NarrowLookup => ({
  readableMessage: (messageId) => {
    const message = ctx.store.messages.get(messageId);
    return message && messageAccess(ctx, viewer, message) ? message : undefined;
  },
  userTopics: () => ctx.store.userTopics.ofOwner(ctx.ownerOf(viewer.id)),
});
