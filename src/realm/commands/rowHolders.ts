// Who may hold a user's row (flags) for a conversation's messages: what deleting, moving, editing
// and reacting to them must visit. A conversation's members (a channel's subscribers, past ones
// included; a direct conversation's participants) and, in a channel, the users who set flags on its
// messages through its public history without ever subscribing (each such row is
// read|historical, Zulip's "historical" UserMessage).
import type { CommandContext } from '../context.js';

interface Conversation {
  channelId: number | null;
  participants: readonly number[];
  recipientId: number;
}

export function rowHolders(ctx: CommandContext, conversation: Conversation): number[] {
  const members = ctx.state.conversationMembers(conversation);
  if (conversation.channelId === null) return members;
  const historical = ctx.store.historicalHoldersOf(ctx.state.realm.id, conversation.recipientId);
  return historical.length === 0 ? members : [...new Set([...members, ...historical])];
}

/** Records the user as holding rows in these channel conversations, where they never subscribed
 * (their rows were made from the channel's history). */
export function noteHistoricalRows(ctx: CommandContext, userId: number, recipientIds: Iterable<number>): void {
  for (const recipientId of recipientIds) {
    const channel = ctx.state.channelByRecipient(recipientId);
    if (channel && ctx.state.subscription(channel.id, userId) === undefined) ctx.store.addHistoricalHolder(ctx.state.realm.id, recipientId, userId);
  }
}
