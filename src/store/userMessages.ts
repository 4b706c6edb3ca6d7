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
// Flag updates on rows a user has go to the user's flag journal (flagJournal.ts) instead of the
// chunks, which it is folded into later; rows read from LMDB have it applied.
//
// Active users' rows are also held in memory (rowTables.ts), all conversations merged by message
// ID: a window of everything, or a flag update over thousands of rows, reads them there.
import type { Database } from 'lmdb';
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

/** A chunk with one more row after its last. */
function withRow(bytes: Buffer, messageId: number, flags: number): Buffer {
  const appended = Buffer.allocUnsafe(bytes.length + ENTRY_BYTES);
  bytes.copy(appended);
  appended.writeUInt32LE(messageId, bytes.length);
  appended.writeUInt16LE(flags, bytes.length + 4);
  return appended;
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

/** A conversation of a user's as memory knows it: where its chunks start and, while a write batch
 * appends to it, its last chunk as the appends left it, not yet written. */
interface Conversation {
  userId: number;
  recipientId: number;
  starts: number[];
  /** The first ID of the chunk whose entries are in the conversation's tail, if one's are. */
  tailStart: number | undefined;
  unwritten: Unwritten | undefined;
  /** The write that last changed `unwritten` (see `remember`), and `unwritten` before it. */
  changedBy: number;
  before: Unwritten | undefined;
}

/** A conversation's last chunk with appends not yet written: the first `length` bytes of a buffer
 * with room for more. Appends only add bytes after `length`, so an earlier state of the chunk is
 * the same buffer with its earlier length. */
interface Unwritten {
  firstId: number;
  bytes: Buffer;
  length: number;
}

const CHUNK_BYTES = MAX_ENTRIES * ENTRY_BYTES;

export class UserMessageIndex {
  /** Each conversation by user and recipient: where its chunks start, read from LMDB on first use
   * and kept in step with every write (a cursor seek costs ten times a point read). */
  private readonly chunkStarts = new Map<number, Map<number, Conversation>>();
  /** Each user's conversations, read on first use and kept in step likewise. */
  private readonly userConversations = new Map<number, Set<number>>();
  /** The conversations whose last chunk holds appends not yet written (see `append`). */
  private dirty: Conversation[] = [];
  /** Whether appends wait for `flush` (set by the store for a batch of several writes; a write
   * alone puts its rows at once, which costs less than keeping them). */
  deferAppends = false;
  /** The write running (0: none), and the conversations whose unwritten chunk it changed. */
  private write = 0;
  private writes = 0;
  private readonly changed: Conversation[] = [];
  /** Active users' rows: flags in `first`, the conversation in `second`. */
  private readonly active = new TableCache<RowTable>(ACTIVE_ROWS);
  /** Each user's newest row (`newest`), read on first use and forgotten by any write of the user's. */
  private readonly newestIds = new Map<number, number>();

  private readonly journal: FlagJournal;

  constructor(
    private readonly db: Database<Buffer, Key>,
    private readonly tails: Database<Buffer, TailKey>,
    journal: Database<Buffer, [userId: number, sequence: number]>,
  ) {
    this.journal = new FlagJournal(journal);
  }

  /** Forgets what was read or written in memory: after another writer changed rows, or after a
   * write was rolled back (`rolledBack`: of the users' rows in memory, only those it loaded or
   * changed). Appends not yet written are forgotten too: call `flush` first to keep them. */
  forget(rolledBack = false): void {
    this.chunkStarts.clear();
    this.userConversations.clear();
    this.newestIds.clear();
    this.dirty = [];
    if (rolledBack) {
      this.active.dropWritten();
    } else {
      this.active.clear();
      this.journal.forget();
    }
  }

  /** A write of a batch starts: what it appends can be taken back (`rollBackWrite`), and the rows
   * in memory it loads or changes are known (TableCache.beginWrite). */
  beginWrite(): void {
    this.write = ++this.writes;
    this.active.beginWrite();
    this.journal.settle();
  }

  /** The write succeeded: its appends stay with the batch's. */
  endWrite(): void {
    for (const conversation of this.changed) conversation.before = undefined;
    this.changed.length = 0;
    this.write = 0;
    this.journal.settle();
  }

  /** The write failed (LMDB rolled its transaction back): its appends are taken back, those of the
   * batch's earlier writes kept, to be written by `flush`. */
  rollBackWrite(): void {
    for (const conversation of this.changed) {
      if (conversation.before !== undefined && conversation.unwritten === undefined) this.dirty.push(conversation);
      conversation.unwritten = conversation.before;
    }
    // Where their chunks start and which one is in the tail, as LMDB has it again (the write may
    // have moved them), for `flush` to write the batch's earlier appends.
    for (const conversation of this.dirty) Object.assign(conversation, this.chunksOf(conversation.userId, conversation.recipientId));
    this.journal.rollBackWrite();
    this.endWrite();
  }

  /** Writes the chunks appends changed: once per conversation and batch, however many of its
   * messages the batch holds. Every other use of the index flushes first; the store flushes at
   * the end of each write batch. */
  flush(): void {
    if (this.dirty.length === 0) return;
    for (const conversation of this.dirty) {
      const unwritten = conversation.unwritten;
      if (unwritten === undefined) continue;
      this.remember(conversation);
      this.putChunk(conversation, unwritten.firstId, unwritten.bytes.subarray(0, unwritten.length));
      conversation.unwritten = undefined;
    }
    this.dirty = [];
  }

  /** Keeps, for a write that may yet fail, how a conversation's unwritten chunk was before it. */
  private remember(conversation: Conversation): void {
    if (this.write === 0 || conversation.changedBy === this.write) return;
    conversation.changedBy = this.write;
    conversation.before = conversation.unwritten;
    this.changed.push(conversation);
  }

  private conversation(userId: number, recipientId: number): Conversation {
    let byRecipient = this.chunkStarts.get(userId);
    if (!byRecipient) this.chunkStarts.set(userId, (byRecipient = new Map()));
    let conversation = byRecipient.get(recipientId);
    if (!conversation) byRecipient.set(recipientId, (conversation = { userId, recipientId, ...this.chunksOf(userId, recipientId), unwritten: undefined, changedBy: 0, before: undefined }));
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
      this.flush();
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
    return value.length > 0 ? value : tailEntries(this.tails.getBinary([recipientId, userId])!);
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
    if (conversation.tailStart === firstId) {
      return tailEntries(this.tails.getBinaryFast([recipientId, userId])!);
    }
    const bytes = this.db.getBinaryFast([userId, recipientId, firstId]);
    return bytes?.subarray(0, bytes.length);
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
    this.flush();
    const chunk = this.locate(userId, recipientId, messageId);
    if (!chunk) return undefined;
    const index = lowerBound(chunk.bytes, messageId);
    if (index >= count(chunk.bytes) || idAt(chunk.bytes, index) !== messageId) return undefined;
    // Read before the journal is: its read may reuse lmdb-js's read buffer, which holds the chunk.
    const stored = flagsAt(chunk.bytes, index);
    return this.journal.overlay(userId).flagsOf(messageId, stored);
  }

  /** Adds the row of a new message (its ID above every other): the send path. In a batch of
   * several writes, the conversation's last chunk is read once and kept in memory with the rows
   * added, to be written once at the batch's end (`flush`): one point read and one write per
   * recipient and batch, not per message. Call inside a write. */
  append(userId: number, recipientId: number, messageId: number, flags: number): void {
    this.newestIds.delete(userId);
    const conversation = this.conversation(userId, recipientId);
    const lastStart = conversation.starts.at(-1);
    // The last chunk as the batch's appends left it, else as stored.
    const unwritten = conversation.unwritten;
    let bytes = unwritten ? unwritten.bytes : lastStart === undefined ? undefined : this.read(conversation, lastStart);
    const length = unwritten ? unwritten.length : (bytes?.length ?? 0);
    if (!bytes || length >= CHUNK_BYTES || bytes.readUInt32LE(length - ENTRY_BYTES) >= messageId) return this.addRow(userId, recipientId, messageId, flags);
    this.heldAppended(userId, recipientId, messageId, flags);
    if (!this.deferAppends) {
      this.putChunk(conversation, lastStart!, withRow(bytes, messageId, flags));
      return;
    }
    // A stored chunk is copied out of lmdb-js's read buffer, with room for more rows; a full
    // buffer grows (an earlier state stays valid: it is the old buffer with its length).
    if (!unwritten || length === bytes.length) {
      const roomier = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, length * 2 + ENTRY_BYTES * 4));
      bytes.copy(roomier, 0, 0, length);
      bytes = roomier;
    }
    bytes.writeUInt32LE(messageId, length);
    bytes.writeUInt16LE(flags, length + 4);
    this.remember(conversation);
    if (!unwritten) this.dirty.push(conversation);
    conversation.unwritten = { firstId: lastStart!, bytes, length: length + ENTRY_BYTES };
  }

  /** Adds a row the user does not have (a new chunk, or a place among the chunks) without folding
   * the flag journal: it names only rows the user has, and a chunk rewritten around the new row
   * keeps its stored flags, which the journal still applies to. */
  private addRow(userId: number, recipientId: number, messageId: number, flags: number): void {
    this.flush();
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
    this.flush();
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
    this.flush();
    this.fold(userId);
    const sorted = changes.sorted();
    this.writeChunks(userId, recipientId, sorted);
    this.held(userId, recipientId, sorted);
  }

  /** Sets (add) or clears a flag bit on rows the user has (`messageIds`, each a row of theirs):
   * in memory at once, in LMDB as one record of the user's flag journal, which is folded into the
   * chunks once it has grown past its bounds. Call inside a write. */
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
    if (overlay.length > FOLD_ROWS || overlay.records > FOLD_RECORDS || this.journal.heldRows > JOURNAL_ROWS) this.fold(userId);
  }

  /** Writes the user's flag journal into their chunks and removes its records: their rows in
   * memory hold each row's flags as the journal left them, and its conversation. */
  private fold(userId: number): void {
    if (this.journal.overlay(userId).records === 0) return;
    // The batch's appends first: a chunk they changed would be written again after the fold.
    this.flush();
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

  /** Writes changes (ascending) to one conversation's chunks. */
  private writeChunks(userId: number, recipientId: number, sorted: RowChanges): void {
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
    const only = flags[start];
    // The common case, a new message: appended to the conversation's last chunk, or a new chunk.
    if (end - start === 1 && only !== undefined && (!chunk || idAt(chunk.bytes, count(chunk.bytes) - 1) < ids[start]!)) {
      if (chunk && count(chunk.bytes) < MAX_ENTRIES) this.store(userId, recipientId, chunk.firstId, withRow(chunk.bytes, ids[start]!, only));
      else this.store(userId, recipientId, ids[start]!, encode([[ids[start]!, only]]));
      return;
    }
    // Flag changes on rows the chunk has (the flag updates' case, a fold's): the same chunk, new
    // flags, written only if one differs (a fold's rows are often back at their stored flags: read,
    // then unread again). Changes and rows both ascend: each is looked for from the one before's place.
    if (chunk) {
      const updated = Buffer.from(chunk.bytes);
      let index = 0;
      let change = start;
      let differs = false;
      for (; change < end; change++) {
        const id = ids[change]!;
        const next = flags[change];
        while (index < count(updated) && idAt(updated, index) < id) index++;
        if (next === undefined || index >= count(updated) || idAt(updated, index) !== id) break;
        differs ||= flagsAt(updated, index) !== next;
        updated.writeUInt16LE(next, index * ENTRY_BYTES + 4);
      }
      if (change === end) {
        if (differs) this.putChunk(this.conversation(userId, recipientId), chunk.firstId, updated);
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
    this.flush();
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
    this.flush();
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
    this.flush();
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
