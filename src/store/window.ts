// A window of messages around an anchor in a narrow, as GET /messages (and the flag updates by
// narrow) define it: up to numBefore matching messages before the anchor and numAfter after it.
// Messages are read from an index — the full-text index for a search, else the narrowed channel's,
// or the user's own messages — in key order, never by scanning messages outside the index.
import type { Store } from './store.js';
import { isFlagOperand, matchesNarrow, narrowChannel, narrowSearch, passesFlagTest, requiredFlags, type ResolvedTerm } from '../messages/narrow.js';
import { HISTORICAL_FLAGS, headerOf, type MessageHeader, type MessageRecord } from '../messages/records.js';
import { phrasesHold, wordsOf, type SearchQuery } from '../messages/search.js';
import { RangeCursor } from './idCursors.js';
import type { RowTable } from './rowTables.js';
import type { TopicTable } from './channelTopics.js';

export type Anchor = number | 'newest' | 'oldest' | 'first_unread';

export interface WindowRequest {
  realmId: number;
  userId: number;
  terms: readonly ResolvedTerm[];
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  /** The narrow's channel when the user may read its whole history: its index is read. */
  historyChannel: { id: number; recipientId: number } | undefined;
  /** The channel whose conversation a recipient ID is (undefined: a direct-message group's). */
  channelOf: ChannelOf;
}

export type ChannelOf = (recipientId: number) => number | undefined;

export interface WindowEntry {
  id: number;
  /** Loaded only when asked for: flag updates rarely need it. */
  readonly message: MessageRecord;
  /** Where the message is; flag updates need no more (known from a channel's index). */
  readonly header: MessageHeader;
  /** The user's flags; messages the user never received read as historical and read. */
  flags: number;
  /** Whether the user has a row for the message (received it, or it entered their history). */
  received: boolean;
  /** The message's conversation (recipient ID): where the user's row is. */
  readonly recipientId: number;
}

const NO_PARTICIPANTS: number[] = [];

/** Messages' headers from memory when they are a channel's (the channel from the conversation,
 * the topic from the channel's messages), else the stored ones; each conversation's channel and
 * topics looked up once for a window's thousands of entries, and one header shared by the
 * messages of each topic (headers are never changed). */
export class MessageHeaders {
  private readonly channels = new Map<number, { channelId: number; table: TopicTable; byTopic: MessageHeader[] } | null>();

  constructor(
    private readonly store: Store,
    private readonly channelOf: ChannelOf,
  ) {}

  of(id: number, recipientId: number): MessageHeader {
    const channel = this.channel(recipientId);
    const at = channel ? channel.table.indexOf(id) : -1;
    if (at < 0) return this.store.messageHeader(id)!;
    const { channelId, table, byTopic } = channel!;
    const topic = table.first[at]!;
    return (byTopic[topic] ??= { type: 'stream', channelId, recipientId, topic: table.names[topic]!, participants: NO_PARTICIPANTS });
  }

  /** Whether the message is in the conversation now (not deleted, not moved elsewhere): a channel's
   * from memory, a direct conversation's by the stored header. */
  holds(id: number, recipientId: number): boolean {
    const channel = this.channel(recipientId);
    return channel ? channel.table.indexOf(id) >= 0 : this.store.messageHeader(id)?.recipientId === recipientId;
  }

  private channel(recipientId: number) {
    let channel = this.channels.get(recipientId);
    if (channel === undefined) {
      const channelId = this.channelOf(recipientId);
      channel = channelId === undefined ? null : { channelId, table: this.store.channelTopics.table(channelId), byTopic: [] };
      this.channels.set(recipientId, channel);
    }
    return channel;
  }
}

class LazyEntry implements WindowEntry {
  constructor(
    private readonly store: Store,
    private readonly headers: MessageHeaders,
    readonly id: number,
    readonly flags: number,
    readonly received: boolean,
    readonly recipientId: number,
    private record?: MessageRecord,
    private known?: MessageHeader,
  ) {}

  get message(): MessageRecord {
    this.record ??= this.store.messages.get(this.id)!;
    return this.record;
  }

  get header(): MessageHeader {
    this.known ??= this.record ? headerOf(this.record) : this.headers.of(this.id, this.recipientId);
    return this.known;
  }
}

/** The entry of a message known by its header (flag updates by message ID); its record is read
 * only when asked for. */
export const headerEntry = (store: Store, headers: MessageHeaders, header: MessageHeader, id: number, flags: number, received: boolean): WindowEntry =>
  new LazyEntry(store, headers, id, flags, received, header.recipientId, undefined, header);

/** The entry of a message the user has a row for, known by the row (its conversation and flags);
 * its header and record are read only when asked for. */
export const rowEntry = (store: Store, headers: MessageHeaders, id: number, flags: number, recipientId: number): WindowEntry =>
  new LazyEntry(store, headers, id, flags, true, recipientId);

/** Whether every term can be decided from an index row: flags and IDs always, and on a channel's
 * index its channel and topic (the index stores the topic). Then no message is decoded. */
function decidableFromIndex(terms: readonly ResolvedTerm[], channelIndex: boolean): boolean {
  return terms.every((term) => term.op === 'id' || (term.op === 'is' && isFlagOperand(term.what)) || (channelIndex && (term.op === 'channel' || term.op === 'topic' || (term.op === 'is' && term.what === 'resolved'))));
}

/** What an index row says of a message, in a record's shape, for terms decidable from the index. */
function indexedHeader(id: number, channelId: number | null, topic: string): MessageRecord {
  return { id, realmId: 0, senderId: -1, recipientId: -1, type: 'stream', channelId, topic, participants: [], content: '', renderedContent: '', timestamp: 0, client: '' };
}

export interface MessageWindow {
  anchor: number;
  entries: WindowEntry[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

const AFTER_NEWEST = Number.MAX_SAFE_INTEGER;
/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor clients are told when the window starts after
 * the newest message (zulip-terminal compares with this exact value). */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

const topicOf = (terms: readonly ResolvedTerm[]) => terms.find((term) => term.op === 'topic' && !term.negated);

/** A channel's index rows from `from` on (or back): its topic's index when the narrow names one,
 * so other topics' messages are never read. */
function channelRows(store: Store, channelId: number, terms: readonly ResolvedTerm[], from: number, reverse: boolean): Iterable<[messageId: number, topic: string]> {
  const topicTerm = topicOf(terms);
  return topicTerm?.op === 'topic' ? store.topicRange(channelId, topicTerm.topic, from, reverse) : store.channelRange(channelId, from, reverse);
}

function* messageIds(rows: Iterable<[messageId: number, topic: string]>): Generator<number> {
  for (const [id] of rows) yield id;
}

/** The messages of a search, one direction from `from` (inclusive): those the full-text index finds
 * that the user may read — holds a row for, or reads through the narrowed channel's history —
 * and that match the narrow's other terms and the query's phrases. */
function searchCandidates(store: Store, headers: MessageHeaders, request: WindowRequest, query: SearchQuery, from: number, reverse: boolean, visit: Visit): void {
  const channel = request.historyChannel;
  const searchTerm = request.terms.find((term) => term.op === 'search' && term.query === query);
  const others = request.terms.filter((term) => term !== searchTerm);
  const readers = new Map<number, (messageId: number) => number | undefined>();
  const flagsOf = (recipientId: number, id: number): number | undefined => {
    let reader = readers.get(recipientId);
    if (!reader) readers.set(recipientId, (reader = store.userMessages.reader(request.userId, recipientId)));
    return reader(id);
  };
  // A channel (and a topic of it) is one more index the messages must be in.
  const channelId = narrowChannel(others);
  const within = channelId === undefined ? [] : [new RangeCursor((start) => messageIds(channelRows(store, channelId, others, start, reverse)), from, reverse)];
  // What the channel's cursor decided needs no other check.
  const decided = channelId === undefined ? [] : [others.find((term) => term.op === 'channel' && !term.negated), topicOf(others)];
  const rest = others.filter((term) => !decided.includes(term));
  const checkRecord = rest.length > 0 || query.phrases.length > 0;
  for (const id of store.search.matches(request.realmId, query, from, reverse, within)) {
    const header = store.messageHeader(id);
    if (!header) continue;
    const stored = flagsOf(header.recipientId, id);
    if (stored === undefined && (channel === undefined || header.channelId !== channel.id)) continue;
    const flags = stored ?? HISTORICAL_FLAGS;
    // The message itself is read here only when the rest of the narrow or a phrase needs it.
    const record = checkRecord ? store.messages.get(id) : undefined;
    if (checkRecord && (!record || !matchesNarrow(rest, record, flags))) continue;
    if (record && query.phrases.length > 0 && !phrasesHold(query, wordsOf(record))) continue;
    if (!visit(new LazyEntry(store, headers, id, flags, stored !== undefined, header.recipientId, record, header))) return;
  }
}

/** Takes the candidates one by one, in order, until it returns false. */
type Visit = (entry: WindowEntry) => boolean;

/** The messages of the narrow's index, one direction from `from` (inclusive), each visited in turn:
 * the channel's index (rows hold the topic) when the narrow is one channel whose history the user
 * may read, else the user's own rows (which hold the flags). A visitor, not a generator: a window
 * of everything is thousands of rows, and a generator's step allocates. */
function candidates(store: Store, headers: MessageHeaders, request: WindowRequest, from: number, reverse: boolean, visit: Visit): void {
  const query = narrowSearch(request.terms);
  if (query) return searchCandidates(store, headers, request, query, from, reverse, visit);
  const channel = request.historyChannel;
  const decidable = decidableFromIndex(request.terms, channel !== undefined);
  // Terms decidable from the index are checked against one record shape, refilled for each row.
  const indexed = indexedHeader(0, channel?.id ?? null, '');
  const entry = (id: number, stored: number | undefined, topic: string, recipientId: number): WindowEntry | undefined => {
    const flags = stored ?? HISTORICAL_FLAGS;
    const record = decidable ? undefined : store.messages.get(id);
    if (!decidable && !record) return undefined;
    indexed.id = id;
    indexed.topic = topic;
    if (request.terms.length > 0 && !matchesNarrow(request.terms, record ?? indexed, flags)) return undefined;
    return new LazyEntry(store, headers, id, flags, stored !== undefined, recipientId, record);
  };
  // Rows in memory are walked by position, from `from` one way or the other, while `row` goes on.
  const walk = (table: RowTable, row: (at: number) => boolean): void => {
    if (reverse) for (let at = table.lowerBound(from + 1) - 1; at >= 0 && row(at); at--);
    else for (let at = table.lowerBound(from); at < table.length && row(at); at++);
  };
  // A narrow that asks for a flag (is:unread, is:starred…) matches only messages whose flags pass
  // its test: the others are passed over before anything else is looked at (an anchor at the first
  // unread message walked every row before it).
  const required = requiredFlags(request.terms);
  const fails = (flags: number): boolean => required !== undefined && !passesFlagTest(required, flags);
  if (channel) {
    const flagsOf = store.userMessages.reader(request.userId, channel.recipientId);
    const table = store.channelTopics.table(channel.id);
    // A topic's messages are those of the channel with one of the topic's spellings.
    const topicTerm = topicOf(request.terms);
    const spellings = topicTerm?.op === 'topic' ? table.numbersOf(topicTerm.topic) : undefined;
    walk(table, (at) => {
      if (spellings && !spellings.includes(table.first[at]!)) return true;
      const stored = flagsOf(table.ids[at]!);
      if (fails(stored ?? HISTORICAL_FLAGS)) return true;
      const found = entry(table.ids[at]!, stored, table.topicAt(at), channel.recipientId);
      return !found || visit(found);
    });
  } else {
    const table = store.userMessages.rows(request.userId);
    walk(table, (at) => {
      if (fails(table.first[at]!)) return true;
      const found = entry(table.ids[at]!, table.first[at]!, '', table.second[at]!);
      return !found || visit(found);
    });
  }
}

/** The first `count` candidates, appended to `out`. */
function take(out: WindowEntry[], count: number, from: number, reverse: boolean, source: (from: number, reverse: boolean, visit: Visit) => void): WindowEntry[] {
  const limit = out.length + count;
  if (count > 0) source(from, reverse, (entry) => out.push(entry) < limit);
  return out;
}

export function messageWindow(store: Store, request: WindowRequest): MessageWindow {
  const headers = new MessageHeaders(store, request.channelOf);
  const source = (terms: readonly ResolvedTerm[]) => (from: number, reverse: boolean, visit: Visit) => candidates(store, headers, { ...request, terms }, from, reverse, visit);
  const narrowed = source(request.terms);
  let anchor: number;
  if (request.anchor === 'newest' || (typeof request.anchor === 'number' && request.anchor >= AFTER_NEWEST)) anchor = AFTER_NEWEST;
  else if (request.anchor === 'oldest') anchor = 0;
  else if (request.anchor === 'first_unread') {
    const [firstUnread] = take([], 1, 0, false, source([...request.terms, { op: 'is', what: 'unread', negated: false }]));
    anchor = firstUnread?.id ?? AFTER_NEWEST;
  } else anchor = request.anchor;

  // The messages before the anchor are taken newest first, then turned; those after it follow in
  // the same list.
  const entries = take([], request.numBefore, anchor - 1, true, narrowed).reverse();
  const before = entries.length;
  const afterStart = request.includeAnchor ? anchor : anchor + 1;
  // One more than asked tells whether the newest message was reached.
  const extra = request.includeAnchor ? 1 : 0;
  if (anchor !== AFTER_NEWEST) take(entries, request.numAfter + extra + 1, afterStart, false, narrowed);
  const after = entries.length - before;
  const foundAnchor = request.includeAnchor && after > 0 && entries[before]!.id === anchor;
  const afterLimit = request.numAfter + (foundAnchor ? 1 : 0);
  entries.length = before + Math.min(after, afterLimit);
  return {
    anchor: anchor === AFTER_NEWEST ? LARGER_THAN_MAX_MESSAGE_ID : anchor,
    entries,
    foundAnchor,
    // Anchored at either end, that end is reached whatever the counts (as in Zulip).
    foundOldest: anchor === 0 || before < request.numBefore,
    foundNewest: anchor === AFTER_NEWEST || after <= afterLimit,
  };
}
