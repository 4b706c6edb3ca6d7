// A window of messages around an anchor in a narrow, as GET /messages (and the flag updates by
// narrow) define it: up to numBefore matching messages before the anchor and numAfter after it.
// Messages are read from an index — the narrowed channel's, or the user's own messages — in key
// order, never by scanning messages outside the index.
import type { Store } from '../store/store.js';
import { matchesNarrow, narrowChannel, type ResolvedTerm } from './narrow.js';
import { Flag, type MessageRecord } from './records.js';

export type Anchor = number | 'newest' | 'oldest' | 'first_unread';

export interface WindowRequest {
  userId: number;
  terms: readonly ResolvedTerm[];
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  /** Channel narrows only: may the user read the channel's whole history? */
  channelHistoryVisible: boolean;
}

export interface WindowEntry {
  message: MessageRecord;
  /** The user's flags; messages the user never received read as historical and read. */
  flags: number;
}

export interface MessageWindow {
  anchor: number;
  entries: WindowEntry[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

const AFTER_NEWEST = Number.MAX_SAFE_INTEGER;

/** The messages of the narrow's index, one direction from `from` (inclusive). */
function* candidates(store: Store, request: WindowRequest, from: number, reverse: boolean): Generator<WindowEntry> {
  const channelId = narrowChannel(request.terms);
  const useChannel = channelId !== undefined && request.channelHistoryVisible;
  const prefix = useChannel ? channelId : request.userId;
  const range = reverse ? { start: [prefix, from], end: [prefix, -1], reverse: true } : { start: [prefix, from], end: [prefix, AFTER_NEWEST] };
  const keys = useChannel ? store.channelMessages.getKeys(range) : store.userMessages.getKeys(range);
  for (const [, messageId] of keys as Iterable<[number, number]>) {
    const message = store.messages.get(messageId);
    if (!message) continue;
    const flags = useChannel ? (store.userMessages.get([request.userId, messageId]) ?? Flag.read | Flag.historical) : store.userMessages.get([request.userId, messageId])!;
    if (matchesNarrow(request.terms, message, flags)) yield { message, flags };
  }
}

function take(source: Generator<WindowEntry>, count: number): WindowEntry[] {
  const out: WindowEntry[] = [];
  if (count <= 0) return out;
  for (const entry of source) {
    out.push(entry);
    if (out.length >= count) break;
  }
  return out;
}

export function messageWindow(store: Store, request: WindowRequest): MessageWindow {
  let anchor: number;
  if (request.anchor === 'newest') anchor = AFTER_NEWEST;
  else if (request.anchor === 'oldest') anchor = 0;
  else if (request.anchor === 'first_unread') {
    const firstUnread = [...take(candidates(store, { ...request, terms: [...request.terms, { op: 'is', what: 'unread', negated: false }] }, 0, false), 1)];
    anchor = firstUnread[0]?.message.id ?? AFTER_NEWEST;
  } else anchor = request.anchor;

  const before = take(candidates(store, request, anchor - 1, true), request.numBefore).reverse();
  const afterStart = request.includeAnchor ? anchor : anchor + 1;
  // One more than asked tells whether the newest message was reached.
  const extra = request.includeAnchor ? 1 : 0;
  const after = anchor === AFTER_NEWEST ? [] : take(candidates(store, request, afterStart, false), request.numAfter + extra + 1);
  const foundAnchor = request.includeAnchor && after[0]?.message.id === anchor;
  const afterLimit = request.numAfter + (foundAnchor ? 1 : 0);
  return {
    anchor,
    entries: [...before, ...after.slice(0, afterLimit)],
    foundAnchor,
    // Anchored at either end, that end is reached whatever the counts (as in Zulip).
    foundOldest: anchor === 0 || before.length < request.numBefore,
    foundNewest: anchor === AFTER_NEWEST || after.length <= afterLimit,
  };
}
