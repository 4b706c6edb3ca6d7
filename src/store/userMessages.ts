// Per-user message rows (Zulip's UserMessage): which messages a user has, with the user's flag
// bits, kept per conversation (a channel, or a direct-message group: the message's recipient ID)
// in chunks, so that a window of a channel or a topic touches only that conversation's chunks and
// a window of everything touches a few chunks of each conversation:
//
//   key [userId, recipientId, first message ID] → value: up to MAX_ENTRIES entries sorted by
//                                                 message ID, 6 bytes each — uint32 ID, uint16 flags
//
// A chunk holds the user's messages of the conversation from its first ID up to the next chunk's.
// Message IDs are server-wide and increasing, so a new message is appended to the conversation's
// last chunk (or starts a new one when that is full).
//
// The last chunk a message was appended to (the tail) is kept apart, keyed by conversation first,
// so that the tails of a channel's subscribers lie together in a few pages: a message written
// alone in its transaction dirties those few pages instead of one page per recipient (each user's
// last chunk sits after their other chunks, on pages of its own). The chunk's key then holds an
// empty value, which stands for the tail:
//
//   userMessageTails [recipientId, userId] → value: the tail's first message ID (uint32), then its
//                                            entries as above
//
// A new message's rows go to its conversation's log (conversationLog.ts) instead of the tails, and
// flag updates on rows a user has to the user's flag journal (flagJournal.ts): both are folded
// into the chunks later. A change set records a conversation log's fold as a marker, not its
// writes: whoever applies the set folds again there (changes.ts, `foldLogOf`). Rows read from
// LMDB are the chunks' with the log's rows after the tail's, and the journal applied.
//
// Active users' rows are also held in memory (rowTables.ts), all conversations merged by message
// ID: a window of everything, or a flag update over thousands of rows, reads them there.
import type { Database } from 'lmdb';
import { ConversationLogs, LOG_RECORDS, LOG_ROWS } from './conversationLog.js';
import { FlagJournal, FOLD_RECORDS, FOLD_ROWS, JOURNAL_ROWS } from './flagJournal.js';
import { RowTable, TableCache } from './rowTables.js';

export const MAX_ENTRIES = 160;
const ENTRY_BYTES = 6;
const NEWEST = Number.MAX_SAFE_INTEGER;
/** How many users' rows memory holds at most, together. */
const ACTIVE_ROWS = 4_000_000;
/** Merging a user's conversations at load sorts message ID × CONVERSATIONS + conversation index:
 * exact in a double for 32-bit IDs and up to 2^21 conversations. */
const CONVERSATIONS = 2 ** 21;
/** A tail's value starts with its chunk's first message ID. */
const TAIL_HEADER = 4;
/** The value of a chunk whose entries are its conversation's tail. */
const IN_TAIL = Buffer.alloc(0);

type Key = [userId: number, recipientId: number, firstId: number];
/** A row's new flags, or undefined: the row is removed. */
type Change = number | undefined;
type TailKey = [recipientId: number, userId: number];
export type Row = [messageId: number, flags: number];

const idAt = (bytes: Buffer, index: number): number => bytes.readUInt32LE(index * ENTRY_BYTES);
const flagsAt = (bytes: Buffer, index: number): number => bytes.readUInt16LE(index * ENTRY_BYTES + 4);
const count = (bytes: Buffer): number => bytes.length / ENTRY_BYTES;
/** lmdb-js's shared read buffer (valid until the next read) as a view of exactly the value it
 * read, whose size it reports as its length. */
const exact = (bytes: Buffer | undefined): Buffer | undefined => bytes?.subarray(0, bytes.length);
/** A tail's entries: its value after the chunk's first ID (a view of exactly the value's size, as
 * lmdb-js's shared read buffer reports it). */
const tailEntries = (tail: Buffer): Buffer => tail.subarray(TAIL_HEADER, tail.length);

/** The index of the first entry whose ID is at least `messageId`. */
function lowerBound(bytes: Buffer, messageId: number): number {
  let low = 0;
  let high = count(bytes);
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (idAt(bytes, middle) < messageId) low = middle + 1;
    else high = middle;
  }
  return low;
}

function encode(rows: readonly Row[]): Buffer {
  const bytes = Buffer.allocUnsafe(rows.length * ENTRY_BYTES);
  rows.forEach(([id, flags], index) => {
    bytes.writeUInt32LE(id, index * ENTRY_BYTES);
    bytes.writeUInt16LE(flags, index * ENTRY_BYTES + 4);
  });
  return bytes;
}

/** Writes entries of rows given as message ID and flags interleaved (`rows[2 * from]` on, `count`
 * of them) into `bytes` at `offset`. */
function writeRows(bytes: Buffer, offset: number, rows: readonly number[], from: number, count: number): void {
  for (let index = 0; index < count; index++) {
    bytes.writeUInt32LE(rows[(from + index) * 2]!, offset + index * ENTRY_BYTES);
    bytes.writeUInt16LE(rows[(from + index) * 2 + 1]!, offset + index * ENTRY_BYTES + 4);
  }
}

/** Entries of rows given as message ID and flags interleaved (`rows[2 * from]` on, `count` of them). */
function encodeRows(rows: readonly number[], from: number, count: number): Buffer {
  const bytes = Buffer.allocUnsafe(count * ENTRY_BYTES);
  writeRows(bytes, 0, rows, from, count);
  return bytes;
}

/** Changes to one conversation's rows, in two lists (one change an index, no object per row: a flag
 * update by narrow changes thousands): message IDs, and the flags each row gets. */
export class RowChanges {
  readonly ids: number[] = [];
  readonly flags: Change[] = [];

  static of(rows: Iterable<readonly [messageId: number, flags: Change]>): RowChanges {
    const changes = new RowChanges();
    for (const [id, flags] of rows) changes.add(id, flags);
    return changes;
  }

  get length(): number {
    return this.ids.length;
  }

  add(messageId: number, flags: Change): void {
    this.ids.push(messageId);
    this.flags.push(flags);
  }

  /** The changes by ascending ID (this when they are; of one ID, the last one given is last). */
  sorted(): RowChanges {
    const { ids } = this;
    if (ids.every((id, index) => index === 0 || ids[index - 1]! <= id)) return this;
    const order = ids.map((_, index) => index).sort((a, b) => ids[a]! - ids[b]! || a - b);
    const sorted = new RowChanges();
    for (const index of order) sorted.add(ids[index]!, this.flags[index]);
    return sorted;
  }
}

function decode(bytes: Buffer): Row[] {
  const rows: Row[] = [];
  for (let index = 0; index < count(bytes); index++) rows.push([idAt(bytes, index), flagsAt(bytes, index)]);
  return rows;
}

/** The IDs ascending without repeats: the list itself when it is so already (a window's are). */
function ascendingOnce(ids: readonly number[]): readonly number[] {
  if (ids.every((id, index) => index === 0 || ids[index - 1]! < id)) return ids;
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** The index of the first element greater than `value` in a sorted array. */
function upperBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A conversation of a user's as memory knows it: where its chunks start. */
interface Conversation {
  userId: number;
  recipientId: number;
  starts: number[];
  /** The first ID of the chunk whose entries are in the conversation's tail, if one's are. */
  tailStart: number | undefined;
}

export class UserMessageIndex {
  /** Each conversation by user and recipient: where its chunks start, read from LMDB on first use
   * and kept in step with every write (a cursor seek costs ten times a point read). */
  private readonly chunkStarts = new Map<number, Map<number, Conversation>>();
  /** Each user's conversations, read on first use and kept in step likewise. */
  private readonly userConversations = new Map<number, Set<number>>();
  /** Active users' rows: flags in `first`, the conversation in `second`. */
  private readonly active = new TableCache<RowTable>(ACTIVE_ROWS);
  /** Each user's newest row (`newest`), read on first use and forgotten by any write of the user's. */
  private readonly newestIds = new Map<number, number>();

  private readonly journal: FlagJournal;
  private readonly logs: ConversationLogs;

  constructor(
    private readonly db: Database<Buffer, Key>,
    private readonly tails: Database<Buffer, TailKey>,
    journal: Database<Buffer, [userId: number, sequence: number]>,
    log: Database<Buffer, [recipientId: number, messageId: number]>,
    /** Runs a conversation log's fold (whose writes follow from the tables as they are): the store
     * records a marker in place of its writes (changes.ts). */
    private readonly recordFold: (recipientId: number, fold: () => void) => void = (_, fold) => fold(),
  ) {
    this.journal = new FlagJournal(journal);
    this.logs = new ConversationLogs(log);
  }

  /** Forgets what was read or written in memory: after another writer changed rows, or after a
   * write was rolled back (`rolledBack`: of the users' rows in memory, only those it loaded or
   * changed). */
  forget(rolledBack = false): void {
    this.forgetChunks();
    if (rolledBack) {
      this.active.dropWritten();
    } else {
      this.active.clear();
      this.journal.forget();
    }
  }

  /** Forgets where conversations' chunks start, users' conversations and newest rows, and the
   * conversations' logs: what a fold reads besides the tables. */
  private forgetChunks(): void {
    this.chunkStarts.clear();
    this.userConversations.clear();
    this.newestIds.clear();
    this.logs.forget();
  }

  /** A write of a batch starts: the rows in memory it loads or changes are known
   * (TableCache.beginWrite), and the journal's overlays it changes. */
  beginWrite(): void {
    this.active.beginWrite();
    this.journal.settle();
  }

  /** The write succeeded. */
  endWrite(): void {
    this.journal.settle();
  }

  /** The write failed (LMDB rolled its transaction back): the journal's overlays are as before it
   * (the rest memory holds of it goes with `forget(true)`). */
  rollBackWrite(): void {
    this.journal.rollBackWrite();
  }

  private conversation(userId: number, recipientId: number): Conversation {
    let byRecipient = this.chunkStarts.get(userId);
    if (!byRecipient) this.chunkStarts.set(userId, (byRecipient = new Map()));
    let conversation = byRecipient.get(recipientId);
    if (!conversation) byRecipient.set(recipientId, (conversation = { userId, recipientId, ...this.chunksOf(userId, recipientId) }));
    return conversation;
  }

  /** Where a conversation's chunks start, and which one's entries are in its tail, read from LMDB. */
  private chunksOf(userId: number, recipientId: number): Pick<Conversation, 'starts' | 'tailStart'> {
    const starts = [...this.db.getKeys({ start: [userId, recipientId, 0], end: [userId, recipientId, NEWEST] })].map((chunkKey) => chunkKey[2]);
    // A tail belongs to the last chunk (one of an earlier chunk has been moved out, see `store`).
    const tail = this.tails.getBinaryFast([recipientId, userId]);
    const tailStart = tail && tail.length >= TAIL_HEADER && tail.readUInt32LE(0) === starts.at(-1) ? starts.at(-1) : undefined;
    return { starts, tailStart };
  }

  /** The user's rows in memory, read from LMDB when not held: every conversation's chunks, merged
   * by message ID (one sort of packed numbers), with the flag journal applied. */
  rows(userId: number): RowTable {
    return this.active.load(userId, () => {
      const conversations = this.conversations(userId);
      if (conversations.length >= CONVERSATIONS) throw new Error(`user ${userId} has too many conversations to hold in memory`);
      const chunks = conversations.map((recipientId) =>
        Buffer.concat([...(this.db.getRange({ start: [userId, recipientId, 0], end: [userId, recipientId, NEWEST] }) as Iterable<{ value: Buffer }>)].map(({ value }) => this.entries(userId, recipientId, value))),
      );
      const keys = new Float64Array(chunks.reduce((total, bytes) => total + count(bytes), 0));
      let filled = 0;
      chunks.forEach((bytes, conversation) => {
        for (let index = 0; index < count(bytes); index++) keys[filled++] = idAt(bytes, index) * CONVERSATIONS + conversation;
      });
      keys.sort();
      const table = new RowTable(keys.length);
      const next = new Uint32Array(conversations.length);
      for (const key of keys) {
        const conversation = key % CONVERSATIONS;
        table.push((key - conversation) / CONVERSATIONS, flagsAt(chunks[conversation]!, next[conversation]!++), conversations[conversation]!);
      }
      const overlay = this.journal.overlay(userId);
      overlay.forEachIn(table, (index, at) => (table.first[at] = overlay.flagsAt(index, table.first[at]!)));
      return table;
    });
  }

  /** Keeps the user's rows in memory in step with rows set (or, with undefined, removed) in LMDB:
   * flags set in place, a new newest row added; anything else drops them, to be read again. */
  private held(userId: number, recipientId: number, changes: RowChanges): void {
    const table = this.active.get(userId);
    if (!table) return;
    // Changes come sorted by ID: each is searched for after the one before.
    let from = 0;
    for (let change = 0; change < changes.length; change++) {
      const id = changes.ids[change]!;
      const flags = changes.flags[change];
      from = table.seek(id, from);
      const at = from < table.length && table.ids[from] === id ? from : -1;
      if (flags !== undefined && at >= 0 && table.second[at] === recipientId) {
        table.first[at] = flags;
        this.active.changed(userId);
      } else if (flags !== undefined && at < 0 && id > table.last) {
        table.push(id, flags, recipientId);
        this.active.changed(userId, 1);
      } else {
        this.active.delete(userId);
        return;
      }
    }
  }

  /** `held` for the send path's one new row, without building a list of changes: the common case,
   * a row after the user's last, is added; anything else is left to `held`. */
  private heldAppended(userId: number, recipientId: number, messageId: number, flags: number): void {
    const table = this.active.get(userId);
    if (!table) return;
    if (messageId <= table.last) return this.held(userId, recipientId, RowChanges.of([[messageId, flags]]));
    table.push(messageId, flags, recipientId);
    this.active.changed(userId, 1);
  }

  private starts(userId: number, recipientId: number): number[] {
    return this.conversation(userId, recipientId).starts;
  }

  private store(userId: number, recipientId: number, firstId: number, bytes: Buffer): void {
    const conversation = this.conversation(userId, recipientId);
    const { starts } = conversation;
    const at = upperBound(starts, firstId);
    if (starts[at - 1] !== firstId) starts.splice(at, 0, firstId);
    // A chunk after the tail's: the tail's entries go back under their chunk's key.
    if (conversation.tailStart !== undefined && conversation.tailStart !== starts.at(-1)) {
      const tail = this.tails.getBinary([recipientId, userId])!;
      this.db.put([userId, recipientId, conversation.tailStart], tailEntries(tail));
      this.tails.remove([recipientId, userId]);
      conversation.tailStart = undefined;
    }
    this.putChunk(conversation, firstId, bytes);
    this.userConversations.get(userId)?.add(recipientId);
  }

  /** Writes a chunk whose start is known already; every write of a chunk comes through here or
   * `drop`. The last chunk's entries go to the conversation's tail. */
  private putChunk(conversation: Conversation, firstId: number, bytes: Buffer): void {
    const { userId, recipientId } = conversation;
    if (firstId === conversation.starts.at(-1)) {
      const tail = Buffer.allocUnsafe(TAIL_HEADER + bytes.length);
      tail.writeUInt32LE(firstId, 0);
      bytes.copy(tail, TAIL_HEADER);
      this.tails.put([recipientId, userId], tail);
      if (conversation.tailStart !== firstId) this.db.put([userId, recipientId, firstId], IN_TAIL);
      conversation.tailStart = firstId;
    } else {
      this.db.put([userId, recipientId, firstId], bytes);
    }
    this.newestIds.delete(userId);
  }

  /** A chunk's entries as a range read its value: an empty value stands for the conversation's tail. */
  private entries(userId: number, recipientId: number, value: Buffer): Buffer {
    return value.length > 0 ? value : this.tail(userId, recipientId, true);
  }

  /** The conversation's last chunk, from its tail with the conversation log's rows for the user
   * after it: a copy, or (not `copy`) possibly lmdb-js's shared read buffer, valid until the next
   * read. */
  private tail(userId: number, recipientId: number, copy: boolean): Buffer {
    // The log first: its read may reuse the read buffer.
    const logged = this.logs.rowsOf(userId, recipientId);
    const stored = tailEntries((copy ? this.tails.getBinary([recipientId, userId]) : this.tails.getBinaryFast([recipientId, userId]))!);
    return logged.length === 0 ? stored : Buffer.concat([stored, encodeRows(logged, 0, logged.length / 2)]);
  }

  private drop(userId: number, recipientId: number, firstId: number): void {
    this.db.remove([userId, recipientId, firstId]);
    this.newestIds.delete(userId);
    const conversation = this.conversation(userId, recipientId);
    if (conversation.tailStart === firstId) {
      this.tails.remove([recipientId, userId]);
      conversation.tailStart = undefined;
    }
    const { starts } = conversation;
    const at = upperBound(starts, firstId) - 1;
    if (starts[at] === firstId) starts.splice(at, 1);
    if (starts.length === 0) this.userConversations.get(userId)?.delete(recipientId);
  }

  /** Where the chunk holding `messageId`'s place starts: the last start at or before it. */
  private startOf(userId: number, recipientId: number, messageId: number): number | undefined {
    const starts = this.starts(userId, recipientId);
    return starts[upperBound(starts, messageId) - 1];
  }

  /** A chunk's bytes: lmdb-js's shared read buffer (valid until the next read), which reports the
   * value's size as its length — hence a view of exactly that size. */
  private read(conversation: Conversation, firstId: number): Buffer | undefined {
    const { userId, recipientId } = conversation;
    if (conversation.tailStart === firstId) return this.tail(userId, recipientId, false);
    return exact(this.db.getBinaryFast([userId, recipientId, firstId]));
  }

  /** The chunk holding `messageId`'s place. */
  private locate(userId: number, recipientId: number, messageId: number): { firstId: number; bytes: Buffer } | undefined {
    const firstId = this.startOf(userId, recipientId, messageId);
    const bytes = firstId === undefined ? undefined : this.read(this.conversation(userId, recipientId), firstId);
    return bytes && { firstId: firstId!, bytes };
  }

  private firstIdAfter(userId: number, recipientId: number, messageId: number): number {
    const starts = this.starts(userId, recipientId);
    return starts[upperBound(starts, messageId)] ?? NEWEST;
  }

  /** The user's flags on a message of a conversation, or undefined when the user has no row. */
  get(userId: number, recipientId: number, messageId: number): number | undefined {
    const table = this.active.get(userId);
    if (table) {
      const at = table.indexOf(messageId);
      return at >= 0 && table.second[at] === recipientId ? table.first[at] : undefined;
    }
    const chunk = this.locate(userId, recipientId, messageId);
    if (!chunk) return undefined;
    const index = lowerBound(chunk.bytes, messageId);
    if (index >= count(chunk.bytes) || idAt(chunk.bytes, index) !== messageId) return undefined;
    // Read before the journal is: its read may reuse lmdb-js's read buffer, which holds the chunk.
    const stored = flagsAt(chunk.bytes, index);
    return this.journal.overlay(userId).flagsOf(messageId, stored);
  }

  /** Adds a new message's rows (its ID above every other; `userIds` each once): the send path. The
   * rows of recipients whose last chunk in the conversation is its tail go to the conversation's
   * log as one record; any other (a user's first row in the conversation, say; every one of a
   * message older than the log's last) is written into the chunks, which folds the log first. Call
   * inside a write. */
  appendMessage(recipientId: number, messageId: number, userIds: readonly number[], flags: readonly number[]): void {
    // Which rows go to the log is settled before a row is written (writing one may fold it).
    const loggedIds: number[] = [];
    const loggedFlags: number[] = [];
    let written: number[] | undefined;
    // The log's records ascend: a message before its last one (never a new message) is not logged.
    const ordered = this.logs.lastMessageId(recipientId) <= messageId;
    for (let index = 0; index < userIds.length; index++) {
      if (ordered && this.canLog(userIds[index]!, recipientId, messageId)) {
        loggedIds.push(userIds[index]!);
        loggedFlags.push(flags[index]!);
      } else {
        (written ??= []).push(index);
      }
    }
    for (const index of written ?? []) this.addRow(userIds[index]!, recipientId, messageId, flags[index]!);
    if (loggedIds.length === 0) return;
    // Past its bounds, the log is folded before it grows (a user's last chunk stays the tail).
    if (this.logs.records(recipientId) >= LOG_RECORDS || this.logs.heldRows > LOG_ROWS) this.foldLog(recipientId);
    this.logs.record(recipientId, messageId, loggedIds, loggedFlags);
    for (let at = 0; at < loggedIds.length; at++) {
      this.newestIds.delete(loggedIds[at]!);
      this.heldAppended(loggedIds[at]!, recipientId, messageId, loggedFlags[at]!);
    }
  }

  /** Whether the user's row of a new message in the conversation may go to its log: their last
   * chunk there is its tail, and every row of it (and of the log) is before the message. */
  private canLog(userId: number, recipientId: number, messageId: number): boolean {
    const conversation = this.conversation(userId, recipientId);
    const lastStart = conversation.starts.at(-1);
    if (lastStart === undefined || conversation.tailStart !== lastStart) return false;
    const logged = this.logs.rowsOf(userId, recipientId);
    if (logged.length > 0) return logged[logged.length - 2]! < messageId;
    const tail = this.tails.getBinaryFast([recipientId, userId])!;
    return tail.length > TAIL_HEADER && tail.readUInt32LE(tail.length - ENTRY_BYTES) < messageId;
  }

  /** Writes the conversation's log into its users' chunks and removes its records. */
  private foldLog(recipientId: number): void {
    if (this.logs.records(recipientId) === 0) return;
    this.recordFold(recipientId, () => {
      for (const [userId, rows] of this.logs.take(recipientId)) this.extendTail(this.conversation(userId, recipientId), rows);
    });
  }

  /** Folds the conversation's log where a change set's marker says it was (a copy applying the
   * set): what the fold reads of memory is forgotten first, since the set's writes before the
   * marker went to the tables without it (the rest of memory is forgotten once the set is made).
   * Call inside a write. */
  foldLogOf(recipientId: number): void {
    this.forgetChunks();
    this.foldLog(recipientId);
  }

  /** Appends a user's logged rows (ID and flags interleaved, ascending) to the conversation's
   * tail, which a log's rows come after (`canLog`, and every other change to the chunks folds the
   * log first): into the tail as far as it has room, the rest in new chunks. */
  private extendTail(conversation: Conversation, rows: readonly number[]): void {
    const { userId, recipientId } = conversation;
    const stored = conversation.tailStart !== undefined && conversation.tailStart === conversation.starts.at(-1) ? exact(this.tails.getBinaryFast([recipientId, userId])) : undefined;
    if (!stored) throw new Error(`the log of conversation ${recipientId} holds rows of user ${userId}, whose last chunk there is not its tail`);
    const total = rows.length / 2;
    const room = Math.max(0, Math.min(total, MAX_ENTRIES - (stored.length - TAIL_HEADER) / ENTRY_BYTES));
    if (room > 0) {
      const tail = Buffer.allocUnsafe(stored.length + room * ENTRY_BYTES);
      stored.copy(tail);
      writeRows(tail, stored.length, rows, 0, room);
      this.tails.put([recipientId, userId], tail);
      this.newestIds.delete(userId);
    }
    this.storeNewChunks(userId, recipientId, rows, room, total);
  }

  /** Writes rows (ID and flags interleaved, ascending, after every chunk's) from the `from`th to the
   * `end`th (exclusive) into new chunks. */
  private storeNewChunks(userId: number, recipientId: number, rows: readonly number[], from: number, end: number): void {
    for (let at = from; at < end; at += MAX_ENTRIES) this.store(userId, recipientId, rows[at * 2]!, encodeRows(rows, at, Math.min(MAX_ENTRIES, end - at)));
  }

  /** Adds a row the user does not have (a new chunk, or a place among the chunks) without folding
   * the flag journal: it names only rows the user has, and a chunk rewritten around the new row
   * keeps its stored flags, which the journal still applies to. */
  private addRow(userId: number, recipientId: number, messageId: number, flags: number): void {
    const row = RowChanges.of([[messageId, flags]]);
    this.writeChunks(userId, recipientId, row);
    this.held(userId, recipientId, row);
  }

  /** Sets one row (creating it if needed); call inside a write. */
  put(userId: number, recipientId: number, messageId: number, flags: number): void {
    this.apply(userId, recipientId, RowChanges.of([[messageId, flags]]));
  }

  /** Removes the user's rows for these messages of one conversation, returning the flags each
   * had (messages without a row are absent); call inside a write. */
  take(userId: number, recipientId: number, messageIds: readonly number[]): Map<number, number> {
    const flagsOf = this.reader(userId, recipientId);
    const had = new Map<number, number>();
    const removals = new RowChanges();
    for (const id of [...messageIds].sort((a, b) => a - b)) {
      const flags = flagsOf(id);
      if (flags === undefined) continue;
      had.set(id, flags);
      removals.add(id, undefined);
    }
    if (removals.length > 0) this.apply(userId, recipientId, removals);
    return had;
  }

  /** Sets (or, with undefined, removes) rows of one conversation: one write per chunk touched,
   * after the user's flag journal is folded into the chunks. */
  apply(userId: number, recipientId: number, changes: RowChanges): void {
    this.fold(userId);
    const sorted = changes.sorted();
    this.writeChunks(userId, recipientId, sorted);
    this.held(userId, recipientId, sorted);
  }

  /** Sets (add) or clears a flag bit on rows the user has (`messageIds`, each a row of theirs):
   * in memory at once, in LMDB as one record of the user's flag journal, which is folded into the
   * chunks once it has grown past its bounds (or compacted, past its records bound alone). Call
   * inside a write. */
  mark(userId: number, messageIds: readonly number[], add: boolean, bit: number): void {
    if (messageIds.length === 0) return;
    const ids = ascendingOnce(messageIds);
    const table = this.rows(userId);
    // Marked before the change: a write that fails here drops the table on rollback.
    this.active.changed(userId);
    let at = 0;
    for (const id of ids) {
      at = table.seek(id, at);
      if (at >= table.length || table.ids[at] !== id) throw new Error(`user ${userId} has no row for message ${id}`);
      table.first[at] = add ? table.first[at]! | bit : table.first[at]! & ~bit;
    }
    const overlay = this.journal.record(userId, ids, add, bit);
    if (overlay.length > FOLD_ROWS || this.journal.heldRows > JOURNAL_ROWS) this.fold(userId);
    else if (overlay.records > FOLD_RECORDS) this.journal.compact(userId);
  }

  /** Writes the user's flag journal into their chunks and removes its records: their rows in
   * memory hold each row's flags as the journal left them, and its conversation. */
  private fold(userId: number): void {
    if (this.journal.overlay(userId).records === 0) return;
    const table = this.rows(userId);
    const overlay = this.journal.take(userId);
    const byConversation = new Map<number, RowChanges>();
    overlay.forEachIn(table, (_, at) => {
      const recipientId = table.second[at]!;
      let changes = byConversation.get(recipientId);
      if (!changes) byConversation.set(recipientId, (changes = new RowChanges()));
      changes.add(table.ids[at]!, table.first[at]!);
    });
    for (const [recipientId, changes] of byConversation) this.writeChunks(userId, recipientId, changes);
  }

  /** Writes changes (ascending) to one conversation's chunks, after its log is folded into them. */
  private writeChunks(userId: number, recipientId: number, sorted: RowChanges): void {
    this.foldLog(recipientId);
    const { ids } = sorted;
    let next = 0;
    while (next < ids.length) {
      const firstChange = ids[next]!;
      // The chunk the change falls in; a change before every chunk goes to the first one.
      const chunk = this.locate(userId, recipientId, firstChange) ?? this.locate(userId, recipientId, this.firstIdAfter(userId, recipientId, firstChange));
      const limit = chunk ? this.firstIdAfter(userId, recipientId, Math.max(chunk.firstId, firstChange)) : NEWEST;
      let end = next;
      while (end < ids.length && ids[end]! < limit) end++;
      this.rewrite(userId, recipientId, chunk, sorted, next, end);
      next = end;
    }
  }

  /** Writes the changes `start` to `end` (exclusive, ascending), which fall in one chunk's place. */
  private rewrite(userId: number, recipientId: number, chunk: { firstId: number; bytes: Buffer } | undefined, changes: RowChanges, start: number, end: number): void {
    const { ids, flags } = changes;
    // New rows after the chunk's last, each once (a new message's row that did not go to its
    // conversation's log, rows put after a user's last): the chunk filled up, then new chunks.
    if (!chunk || idAt(chunk.bytes, count(chunk.bytes) - 1) < ids[start]!) {
      const rows: number[] = [];
      for (let change = start; change < end && flags[change] !== undefined && (change === start || ids[change - 1]! < ids[change]!); change++) rows.push(ids[change]!, flags[change]!);
      if (rows.length === (end - start) * 2) {
        const room = chunk ? Math.max(0, Math.min(end - start, MAX_ENTRIES - count(chunk.bytes))) : 0;
        if (room > 0) this.store(userId, recipientId, chunk!.firstId, Buffer.concat([chunk!.bytes, encodeRows(rows, 0, room)]));
        this.storeNewChunks(userId, recipientId, rows, room, end - start);
        return;
      }
    }
    // Flag changes on rows the chunk has (the flag updates' case, a fold's): the same chunk, new
    // flags, written only if one differs (a fold's rows are often back at their stored flags: read,
    // then unread again). Changes and rows both ascend: each is looked for from the one before's place.
    if (chunk) {
      const { bytes } = chunk;
      // Copied at the first flag that differs (the chunk read is lmdb-js's read buffer).
      let updated: Buffer | undefined;
      let index = 0;
      let change = start;
      for (; change < end; change++) {
        const id = ids[change]!;
        const next = flags[change];
        while (index < count(bytes) && idAt(bytes, index) < id) index++;
        if (next === undefined || index >= count(bytes) || idAt(bytes, index) !== id) break;
        // Against the flags as the changes before left them (an ID may come twice: the last wins).
        if (flagsAt(updated ?? bytes, index) === next) continue;
        updated ??= Buffer.from(bytes);
        updated.writeUInt16LE(next, index * ENTRY_BYTES + 4);
      }
      if (change === end) {
        if (updated) this.putChunk(this.conversation(userId, recipientId), chunk.firstId, updated);
        return;
      }
    }
    const rows = new Map<number, number>(chunk ? decode(chunk.bytes) : []);
    for (let change = start; change < end; change++) {
      const next = flags[change];
      if (next === undefined) rows.delete(ids[change]!);
      else rows.set(ids[change]!, next);
    }
    const merged = [...rows].sort((a, b) => a[0] - b[0]);
    if (chunk && merged[0]?.[0] !== chunk.firstId) this.drop(userId, recipientId, chunk.firstId);
    for (let start = 0; start < merged.length; start += MAX_ENTRIES) {
      const piece = merged.slice(start, start + MAX_ENTRIES);
      this.store(userId, recipientId, piece[0]![0], encode(piece));
    }
  }

  /** One conversation's rows from `from` (inclusive) on, oldest first, or from `from` back. */
  *conversationRange(userId: number, recipientId: number, from: number, reverse = false): Generator<Row> {
    // Forward, the chunk holding `from` starts before it.
    const range = reverse
      ? { start: [userId, recipientId, from], end: [userId, recipientId, -1], reverse: true }
      : { start: [userId, recipientId, this.startOf(userId, recipientId, from) ?? from], end: [userId, recipientId, NEWEST] };
    const overlay = this.journal.overlay(userId);
    for (const { value: stored } of this.db.getRange(range) as Iterable<{ value: Buffer }>) {
      const value = this.entries(userId, recipientId, stored);
      const row = (index: number): Row => {
        const id = idAt(value, index);
        return [id, overlay.flagsOf(id, flagsAt(value, index))];
      };
      if (reverse) {
        for (let index = lowerBound(value, from + 1) - 1; index >= 0; index--) yield row(index);
      } else {
        for (let index = lowerBound(value, from); index < count(value); index++) yield row(index);
      }
    }
  }

  /** The conversations the user has rows in. */
  conversations(userId: number): number[] {
    let known = this.userConversations.get(userId);
    if (!known) {
      known = new Set();
      for (let next = 0; ; ) {
        const [key] = this.db.getKeys({ start: [userId, next], end: [userId + 1], limit: 1 }) as Iterable<Key>;
        if (!key) break;
        known.add(key[1]);
        next = key[1] + 1;
      }
      this.userConversations.set(userId, known);
    }
    return [...known];
  }

  /** All the user's rows from `from` (inclusive) on, oldest first, or from `from` back, from
   * memory; each row with its conversation. */
  *range(userId: number, from: number, reverse = false): Generator<[messageId: number, flags: number, recipientId: number]> {
    const table = this.rows(userId);
    if (reverse) {
      for (let at = table.lowerBound(from + 1) - 1; at >= 0; at--) yield [table.ids[at]!, table.first[at]!, table.second[at]!];
    } else {
      for (let at = table.lowerBound(from); at < table.length; at++) yield [table.ids[at]!, table.first[at]!, table.second[at]!];
    }
  }

  /** The user's rows whose `bit` is set (or, not `set`, clear), oldest first, from memory (of one
   * conversation, given `recipientId`): the newest `limit` of them, and whether older ones were left. A loop over
   * the rows' typed arrays, no object per row passed over: register's unread and starred messages
   * (read at every register) and mark-as-read scan a user's whole history (~1 ns a row, where a
   * row yielded as a tuple cost ~70). */
  flagged(userId: number, bit: number, set: boolean, { limit = Infinity, recipientId }: { limit?: number; recipientId?: number } = {}): { ids: number[]; flags: number[]; more: boolean } {
    const { ids, first, second, length } = this.rows(userId);
    const want = set ? bit : 0;
    const found = { ids: [] as number[], flags: [] as number[], more: false };
    for (let at = length - 1; at >= 0; at--) {
      if ((first[at]! & bit) !== want || (recipientId !== undefined && second[at] !== recipientId)) continue;
      if (found.ids.length === limit) {
        found.more = true;
        break;
      }
      found.ids.push(ids[at]!);
      found.flags.push(first[at]!);
    }
    found.ids.reverse();
    found.flags.reverse();
    return found;
  }

  /** The newest message the user has a row for, or -1: the last row of each conversation's last
   * chunk, one point read a conversation (chunks are never left empty). */
  newest(userId: number): number {
    const table = this.active.get(userId);
    if (table) return table.last;
    let newest = this.newestIds.get(userId);
    if (newest === undefined) this.newestIds.set(userId, (newest = this.readNewest(userId)));
    return newest;
  }

  private readNewest(userId: number): number {
    let newest = -1;
    for (const recipientId of this.conversations(userId)) {
      const last = this.lastChunk(userId, recipientId);
      if (last && count(last) > 0) newest = Math.max(newest, idAt(last, count(last) - 1));
    }
    return newest;
  }

  /** A conversation's last chunk: where memory knows its chunks start, else by one seek from its
   * end (listing every chunk of a long history faults in pages from all over the file). */
  private lastChunk(userId: number, recipientId: number): Buffer | undefined {
    const known = this.chunkStarts.get(userId)?.get(recipientId);
    if (known) {
      const lastStart = known.starts.at(-1);
      return lastStart === undefined ? undefined : this.read(known, lastStart);
    }
    const range = { start: [userId, recipientId, NEWEST], end: [userId, recipientId, -1], reverse: true, limit: 1 };
    for (const { value } of this.db.getRange(range) as Iterable<{ value: Buffer }>) return this.entries(userId, recipientId, value);
    return undefined;
  }

  /** One user's flags on a conversation's messages, from memory. */
  reader(userId: number, recipientId: number): (messageId: number) => number | undefined {
    const table = this.rows(userId);
    return (messageId) => {
      const at = table.indexOf(messageId);
      return at >= 0 && table.second[at] === recipientId ? table.first[at] : undefined;
    };
  }
}
