// What register reports from the user's message rows beyond unread counts: the starred messages,
// and the direct-message conversations by recency (Zulip's recent_private_conversations).
import { Flag } from '../../messages/records.js';
import type { ReadContext } from '../context.js';

/** Zulip reports at most this many recent direct-message conversations. */
const MAX_RECENT_CONVERSATIONS = 1000;

export function starredInitialState(ctx: ReadContext) {
  return { starred_messages: ctx.store.userMessages.flagged(ctx.user.id, Flag.starred, true).ids };
}

/** Each direct-message conversation's newest message and its other participants, newest first. */
export function recentConversationsInitialState(ctx: ReadContext) {
  const userId = ctx.user.id;
  const channelRecipients = new Set([...ctx.state.channels.values()].map((channel) => channel.recipientId));
  const conversations: { max_message_id: number; user_ids: number[] }[] = [];
  for (const recipientId of ctx.store.userMessages.conversations(userId)) {
    if (channelRecipients.has(recipientId)) continue;
    const newest = ctx.store.userMessages.conversationRange(userId, recipientId, Number.MAX_SAFE_INTEGER, true).next();
    if (newest.done) continue;
    const [messageId] = newest.value;
    const header = ctx.store.messageHeader(messageId);
    if (!header) continue;
    conversations.push({ max_message_id: messageId, user_ids: header.participants.filter((id) => id !== userId) });
  }
  conversations.sort((a, b) => b.max_message_id - a.max_message_id);
  return { recent_private_conversations: conversations.slice(0, MAX_RECENT_CONVERSATIONS) };
}
