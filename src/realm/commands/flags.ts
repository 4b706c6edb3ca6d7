// Per-user message flags: by message IDs (spec endpoint 17) and by narrow (spec endpoint 9), one
// core for both; `update_message_flags` events to the acting user only.
import { normalizeTopic } from '../../messages/emptyTopic.js';
import { canReadChannel } from '../../channels/access.js';
import { errors } from '../../errors.js';
import { Flag, HISTORICAL_FLAGS, headerOf, type FlagName, type MessageHeader } from '../../messages/records.js';
import type { TopicTable } from '../../store/channelTopics.js';
import { RowChanges } from '../../store/userMessages.js';
import { headerEntry, MessageHeaders, rowEntry, type WindowEntry } from '../../store/window.js';
import type { UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { channelsOf, MAX_MESSAGES_PER_FETCH, narrowWindow, type WindowInput } from './messages.js';
import type { MessageDetails } from '../../events/catalogue.js';
import { JsonText, NumberKeyedJson } from '../../events/jsonText.js';
import type { ZulipEvent } from '../../events/types.js';
import { retractNotifications } from './notifications.js';
import { noteHistoricalRows } from './rowHolders.js';

/** The flags a user may set directly (spec: Message flags). */
const settable = new Set(['read', 'starred', 'collapsed']);
const anyMention = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned;

function checkFlag(flag: string): number {
  if (settable.has(flag)) return Flag[flag as FlagName];
  if (flag in Flag || flag === 'wildcard_mentioned') throw errors.badRequest(`Flag not editable: '${flag}'`);
  throw errors.badRequest(`Invalid flag: '${flag}'`);
}

interface FlagChange {
  op: 'add' | 'remove';
  flag: string;
}

/** What a flag change did: the entries it changed with their new flags (in two lists, one entry
 * an index), and the channels skipped. */
interface Applied {
  entries: WindowEntry[];
  flags: number[];
  ignoredChannels: number[];
}

/** Applies a flag change to entries the user may access; returns what changed and what was skipped. */
function applyFlag(ctx: CommandContext, user: UserRecord, entries: readonly WindowEntry[], change: FlagChange): Applied {
  const bit = checkFlag(change.flag);
  const applied: Applied = { entries: [], flags: [], ignoredChannels: [] };
  // Removing `read` skips messages in channels the user is not subscribed to (spec: States),
  // decided once per conversation.
  const skipped = new Map<number, number | null>();
  const skippedChannel = (recipientId: number): number | null => {
    let channelId = skipped.get(recipientId);
    if (channelId === undefined) {
      const channel = ctx.state.channelByRecipient(recipientId);
      channelId = channel && !ctx.state.isSubscribed(channel.id, user.id) ? channel.id : null;
      skipped.set(recipientId, channelId);
    }
    return channelId;
  };
  const removingRead = change.op === 'remove' && bit === Flag.read;
  // Rows the user has, whose bit changes; and rows made from a channel's history (the user never
  // received the message), by conversation.
  const marked: number[] = [];
  const fromHistory = new Map<number, RowChanges>();
  for (const entry of entries) {
    if (removingRead && skippedChannel(entry.recipientId) !== null) continue;
    // A message the user never received reads as historical and read; flagging it otherwise
    // enters it into their history (Zulip's "historical").
    const current = entry.received ? entry.flags : HISTORICAL_FLAGS;
    const next = change.op === 'add' ? current | bit : current & ~bit;
    if (next === current) continue;
    applied.entries.push(entry);
    applied.flags.push(next);
    if (entry.received) {
      marked.push(entry.id);
      continue;
    }
    let rows = fromHistory.get(entry.recipientId);
    if (!rows) fromHistory.set(entry.recipientId, (rows = new RowChanges()));
    rows.add(entry.id, next);
  }
  for (const channelId of skipped.values()) if (channelId !== null) applied.ignoredChannels.push(channelId);
  applied.ignoredChannels.sort((a, b) => a - b);
  // History rows first: a change other than a mark folds the user's flag journal, which would
  // write the mark's record into the chunks at once.
  for (const [recipientId, rows] of fromHistory) ctx.store.userMessages.apply(user.id, recipientId, rows);
  ctx.store.userMessages.mark(user.id, marked, change.op === 'add', bit);
  noteHistoricalRows(ctx, user.id, fromHistory.keys());
  if (applied.entries.length === 0) return applied;
  const ids = applied.entries.map((entry) => entry.id);
  ctx.emit(flagEvent(ctx, user, applied, ids, change), [user.id]);
  if (change.op === 'add' && bit === Flag.read) retractNotifications(ctx, user.id, ids);
  return applied;
}

function flagEvent(ctx: CommandContext, user: UserRecord, applied: Applied, ids: number[], change: FlagChange): ZulipEvent {
  const event: ZulipEvent = { type: 'update_message_flags', op: change.op, operation: change.op, flag: change.flag, messages: ids, all: false };
  // Clients put messages marked unread back into their unread counts from these details.
  if (change.op === 'remove' && change.flag === 'read') {
    const shared = new SharedDetails(ctx, user);
    const details = new NumberKeyedJson();
    applied.entries.forEach((entry, index) => details.add(entry.id, shared.of(entry, (applied.flags[index]! & anyMention) !== 0)));
    event.message_details = new JsonText(details.json());
  }
  return event;
}

/** A conversation's details texts (UTF-8), by topic number (a channel's) and mention state, and where in
 * its channel's messages the last entry was found. */
interface ConversationDetails {
  channelId: number | undefined;
  table: TopicTable | undefined;
  at: number;
  lastId: number;
  texts: Buffer[];
}

/** One details text for each conversation, topic and mention state: messages alike share it (a
 * window of thousands has a few dozen). A channel message's topic is found by walking the channel's
 * messages in memory along with the entries (which come in ID order), not by a header each. */
class SharedDetails {
  private readonly conversations = new Map<number, ConversationDetails>();

  constructor(
    private readonly ctx: CommandContext,
    private readonly user: UserRecord,
  ) {}

  of(entry: WindowEntry, mentioned: boolean): Buffer {
    let conversation = this.conversations.get(entry.recipientId);
    if (!conversation) {
      const channelId = this.ctx.state.channelByRecipient(entry.recipientId)?.id;
      const table = channelId === undefined ? undefined : this.ctx.store.channelTopics.table(channelId);
      this.conversations.set(entry.recipientId, (conversation = { channelId, table, at: 0, lastId: -1, texts: [] }));
    }
    const mention = mentioned ? 1 : 0;
    const { table } = conversation;
    if (!table) return (conversation.texts[mention] ??= this.text(entry.header, mentioned));
    // Entries in ID order are found from the one before's place; any other order searches anew.
    conversation.at = table.seek(entry.id, entry.id > conversation.lastId ? conversation.at : 0);
    conversation.lastId = entry.id;
    if (conversation.at >= table.length || table.ids[conversation.at] !== entry.id) return this.text(entry.header, mentioned);
    const topic = table.first[conversation.at]!;
    return (conversation.texts[topic * 2 + mention] ??= this.text({ type: 'stream', channelId: conversation.channelId!, recipientId: entry.recipientId, topic: table.names[topic]!, participants: [] }, mentioned));
  }

  private text(message: MessageHeader, mentioned: boolean): Buffer {
    const details: MessageDetails =
      message.type === 'stream' ? { type: 'stream', stream_id: message.channelId, topic: message.topic } : { type: 'private', user_ids: message.participants.filter((id) => id !== this.user.id) };
    if (mentioned) details.mentioned = true;
    return Buffer.from(JSON.stringify(details));
  }
}

/** The entries for explicit message IDs: the user's rows in memory place most, when the row's
 * conversation still holds the message (a channel's known from memory: no header read); else the
 * message's header places it, with the user's row there or through a channel whose history they
 * may read. Any the user cannot access is refused, as Zulip does. */
function entriesFor(ctx: CommandContext, user: UserRecord, ids: readonly number[]): WindowEntry[] {
  const headers = new MessageHeaders(ctx.store, channelsOf(ctx));
  const rows = ctx.store.userMessages.rows(user.id);
  return ids.map((id) => {
    const at = rows.indexOf(id);
    if (at >= 0 && headers.holds(id, rows.second[at]!)) return rowEntry(ctx.store, headers, id, rows.first[at]!, rows.second[at]!);
    const header = ctx.store.messageHeader(id);
    const flags = header && ctx.store.userMessages.get(user.id, header.recipientId, id);
    if (header && flags !== undefined) return headerEntry(ctx.store, headers, header, id, flags, true);
    const channel = header?.channelId == null ? undefined : ctx.state.channels.get(header.channelId);
    if (header && channel && channel.historyPublicToSubscribers && canReadChannel(ctx.state, channel, user)) return headerEntry(ctx.store, headers, header, id, HISTORICAL_FLAGS, false);
    throw errors.badRequest('Invalid message(s)');
  });
}

export interface NarrowFlagInput extends FlagChange, WindowInput {}

/** Zulip's bound on one flag update by narrow: at most 5,000 messages. */
export function clampWindow(numBefore: number, numAfter: number): { numBefore: number; numAfter: number } {
  const before = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_FETCH - numAfter, MAX_MESSAGES_PER_FETCH / 2));
  return { numBefore: before, numAfter: Math.min(numAfter, MAX_MESSAGES_PER_FETCH - before) };
}

/** Which unread messages: of one channel (and topic), of one sender, or all. */
interface UnreadFilter {
  channelId?: number;
  topic?: string;
  senderId?: number;
}

/** The user's unread messages that pass the filter: for the mark-as-read endpoints and muting. */
function unreadEntries(ctx: CommandContext, user: UserRecord, filter: UnreadFilter): WindowEntry[] {
  const { channelId, topic, senderId } = filter;
  const entries: WindowEntry[] = [];
  const channel = channelId === undefined ? undefined : ctx.state.channels.get(channelId);
  const unread = ctx.store.userMessages.flagged(user.id, Flag.read, false, { recipientId: channel?.recipientId });
  for (let index = 0; index < unread.ids.length; index++) {
    const id = unread.ids[index]!;
    const flags = unread.flags[index]!;
    const message = ctx.store.messages.get(id);
    if (!message || (channelId !== undefined && message.channelId !== channelId)) continue;
    if (topic !== undefined && message.topic.toLowerCase() !== topic.toLowerCase()) continue;
    if (senderId !== undefined && message.senderId !== senderId) continue;
    entries.push({ id: message.id, message, header: headerOf(message), flags, received: true, recipientId: message.recipientId });
  }
  return entries;
}

/** Marks every unread message of a sender read for the user (Zulip does so on muting the sender). */
export function markSenderRead(ctx: CommandContext, user: UserRecord, senderId: number): void {
  applyFlag(ctx, user, unreadEntries(ctx, user, { senderId }), { op: 'add', flag: 'read' });
}

export const flagCommands = {
  /** The deprecated but used POST /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read. */
  'flags.markAsRead': writeCommand((ctx, input: { channelId?: number; topic?: string }) => {
    const user = ctx.user;
    if (input.channelId !== undefined) {
      const channel = ctx.state.channels.get(input.channelId);
      if (!channel || !canReadChannel(ctx.state, channel, user)) throw errors.badRequest('Invalid channel ID');
    }
    const topic = input.topic === undefined ? undefined : normalizeTopic(input.topic);
    applyFlag(ctx, user, unreadEntries(ctx, user, { channelId: input.channelId, topic }), { op: 'add', flag: 'read' });
    return { complete: true };
  }),

  'flags.update': writeCommand((ctx, input: FlagChange & { messages: number[] }) => {
    const user = ctx.user;
    checkFlag(input.flag);
    const { entries, ignoredChannels } = applyFlag(ctx, user, entriesFor(ctx, user, input.messages), input);
    return {
      messages: entries.map((entry) => entry.id),
      ...(input.op === 'remove' && input.flag === 'read' ? { ignored_because_not_subscribed_channels: ignoredChannels } : {}),
    };
  }),

  'flags.updateNarrow': writeCommand((ctx, input: NarrowFlagInput) => {
    const user = ctx.user;
    checkFlag(input.flag);
    const { numBefore, numAfter } = clampWindow(input.numBefore, input.numAfter);
    if (!input.includeAnchor && numBefore > 0 && numAfter > 0) throw errors.badRequest('The anchor can only be excluded at an end of the range');
    const window = narrowWindow(ctx, user, { ...input, numBefore, numAfter });
    const { entries, ignoredChannels } = applyFlag(ctx, user, window.entries, input);
    return {
      processed_count: window.entries.length,
      updated_count: entries.length,
      first_processed_id: window.entries[0]?.id ?? null,
      last_processed_id: window.entries.at(-1)?.id ?? null,
      found_oldest: window.foundOldest,
      found_newest: window.foundNewest,
      ...(input.op === 'remove' && input.flag === 'read' ? { ignored_because_not_subscribed_channels: ignoredChannels } : {}),
    };
  }),
};
