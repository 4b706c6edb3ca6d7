// What moving messages to another topic or channel does besides changing them (Zulip's
// do_update_message): rows move to the new channel's conversation for its subscribers (read for
// those who had none), users not subscribed to it lose theirs (and those who cannot read it are
// told the messages are gone), and the notification bot leaves notices in the old and new threads.
import { canReadChannel } from '../../channels/access.js';
import type { ChannelRecord } from '../../channels/records.js';
import { Flag, RESOLVED_PREFIX, type MessageRecord } from '../../messages/records.js';
import type { UserRecord } from '../../users/records.js';
import { RowChanges } from '../../store/userMessages.js';
import type { CommandContext } from '../context.js';
import { sendMessage } from './messages.js';
import { noteHistoricalRows, rowHolders } from './rowHolders.js';
import { emitDeletion } from './deletionEvents.js';


export function moveRows(ctx: CommandContext, messages: readonly MessageRecord[], from: ChannelRecord, topic: string, to: ChannelRecord): void {
  const subscribers = new Set(ctx.state.subscriberIds(to.id));
  const losingAccess: number[] = [];
  const ids = messages.map((message) => message.id);
  const holders = new Set([...rowHolders(ctx, { channelId: from.id, participants: [], recipientId: from.recipientId }), ...subscribers]);
  for (const userId of holders) {
    const had = ctx.store.userMessages.take(userId, from.recipientId, ids);
    if (subscribers.has(userId)) ctx.store.userMessages.apply(userId, to.recipientId, RowChanges.of(ids.map((id) => [id, had.get(id) ?? Flag.read])));
    else if (had.size === 0) continue;
    else if (!canReadChannel(ctx.state, to, ctx.state.users.get(userId)!)) losingAccess.push(userId);
    else if (!ctx.state.isSubscribed(from.id, userId)) {
      // Rows of someone not in either channel who may still read the messages (a star set from the
      // history, say) follow them, as Zulip's rows follow their message.
      ctx.store.userMessages.apply(userId, to.recipientId, RowChanges.of(had));
      noteHistoricalRows(ctx, userId, [to.recipientId]);
    }
    // The old channel's subscribers not in the new one lose theirs (Zulip's subs_losing_usermessages).
  }
  if (losingAccess.length > 0) {
    emitDeletion(ctx, { message_type: 'stream', stream_id: from.id, topic }, messages.map((message) => message.id), losingAccess);
  }
}

export interface MoveNotice {
  editor: UserRecord;
  from: { channel: ChannelRecord; topic: string };
  to: { channel: ChannelRecord; topic: string };
  moved: readonly MessageRecord[];
  toOldThread: boolean;
  toNewThread: boolean;
}

const place = (channel: ChannelRecord, topic: string): string => `#**${channel.name}>${topic}**`;

/** The notification bot's notices of a move, in Zulip's words. */
export function announceMove(ctx: CommandContext, notice: MoveNotice): void {
  const botId = ctx.state.realm.notificationBotId;
  const bot = botId === null ? undefined : ctx.state.users.get(botId);
  if (!bot || notice.moved.length === 0) return;
  const { editor, from, to, moved } = notice;
  const post = (channel: ChannelRecord, topic: string, content: string) =>
    sendMessage(ctx, bot, { type: 'stream', to: [channel.id], topic, content, readBySender: true, client: 'Internal', system: true });
  const user = `@_**${editor.fullName}|${editor.id}**`;
  if (from.channel.id === to.channel.id && (to.topic === RESOLVED_PREFIX + from.topic || from.topic === RESOLVED_PREFIX + to.topic)) {
    post(to.channel, to.topic, `${user} has marked this topic as ${to.topic.startsWith(RESOLVED_PREFIX) ? 'resolved' : 'unresolved'}.`);
    return;
  }
  const all = !ctx.store.topicHasMessages(from.channel.id, from.topic.toLowerCase());
  const one = `[A message](#narrow/near/${moved[0]!.id})`;
  if (notice.toNewThread) {
    const what = all ? 'This topic was' : moved.length === 1 ? `${one} was` : `${moved.length} messages were`;
    post(to.channel, to.topic, `${what} moved here from ${place(from.channel, from.topic)} by ${user}.`);
  }
  if (notice.toOldThread) {
    const what = all ? 'This topic was moved' : moved.length === 1 ? `${one} was moved from this topic` : `${moved.length} messages were moved from this topic`;
    post(from.channel, from.topic, `${what} to ${place(to.channel, to.topic)} by ${user}.`);
  }
}
