// New messages' rows, kept per conversation beside the users' chunks (userMessages.ts) until they
// are folded into them. Appending a message's row to each recipient's last chunk rewrote a tail
// per recipient (a hundred values of up to 960 bytes for a channel of a hundred, and their pages'
// fdatasync, when the message is sent alone); one record per message is one value of a byte or two
// a recipient, at the end of its conversation's keys:
//
//   userMessageLog [recipientId, messageId] → value: the recipients whose rows are in the log with
//                                             their flags (recordValue below)
//
// A user's rows in a conversation are their chunks' with the log's rows for them after the last:
// a record names only users whose last chunk is in the conversation's tail, with every row of it
// before the message. Any other change to the conversation's chunks folds its log first: each
// user's rows written into their chunks and the records removed. So does a log grown past
// LOG_RECORDS records, or any log grown while the logs in memory hold more than LOG_ROWS rows
// together, in the write that grows it. A fold travels in a change set as a marker (changes.ts).
import type { Database } from 'lmdb';
import { readVarints, writeVarint } from './varints.js';

/** The records, and the rows of every log in memory together, past which a write folds a
 * conversation's log into the chunks. */
export const LOG_RECORDS = 64;
export const LOG_ROWS = 1_000_000;
/** A record of format 8 and before: 6 bytes a row, uint32 user ID and uint16 flags. */
const PAIR_BYTES = 6;

type Key = [recipientId: number, messageId: number];

/** One conversation's log: its records' message IDs, and each user's rows in it (message ID and
 * flags, interleaved, ascending). */
interface Log {
  messageIds: number[];
  rows: Map<number, number[]>;
}

const EMPTY_ROWS: readonly number[] = [];

/** The conversations' logs, each read on first use and kept in step with every write; a write
 * rolled back forgets them (LMDB has them as they were). */
export class ConversationLogs {
  private readonly logs = new Map<number, Log>();
  private held = 0;

  constructor(private readonly db: Database<Buffer, Key>) {}

  private log(recipientId: number): Log {
    const held = this.logs.get(recipientId);
    if (held) return held;
    const log: Log = { messageIds: [], rows: new Map() };
    for (const { key, value } of this.db.getRange({ start: [recipientId, 0], end: [recipientId + 1] }) as Iterable<{ key: Key; value: Buffer }>) {
      log.messageIds.push(key[1]);
      readRecord(value, (userId, flags) => this.add(log, userId, key[1], flags));
    }
    this.logs.set(recipientId, log);
    return log;
  }

  private add(log: Log, userId: number, messageId: number, flags: number): void {
    let rows = log.rows.get(userId);
    if (!rows) log.rows.set(userId, (rows = []));
    rows.push(messageId, flags);
    this.held++;
  }

  /** The user's rows in the conversation's log: message ID and flags, interleaved, ascending. */
  rowsOf(userId: number, recipientId: number): readonly number[] {
    return this.log(recipientId).rows.get(userId) ?? EMPTY_ROWS;
  }

  /** The message of the conversation log's last record (0: none). */
  lastMessageId(recipientId: number): number {
    return this.log(recipientId).messageIds.at(-1) ?? 0;
  }

  /** How many records the conversation's log holds. */
  records(recipientId: number): number {
    return this.log(recipientId).messageIds.length;
  }

  /** The rows of every log in memory. */
  get heldRows(): number {
    return this.held;
  }

  /** Writes a message's record: the rows of `userIds` with their `flags` (added to the record the
   * message has already, when it is the log's last). Call inside a write. */
  record(recipientId: number, messageId: number, userIds: readonly number[], flags: readonly number[]): void {
    const log = this.log(recipientId);
    const earlier = log.messageIds.at(-1) === messageId ? this.db.getBinary([recipientId, messageId]) : undefined;
    if (earlier) {
      const [allIds, allFlags] = [[...userIds], [...flags]];
      readRecord(earlier, (userId, userFlags) => {
        allIds.push(userId);
        allFlags.push(userFlags);
      });
      this.db.put([recipientId, messageId], recordValue(allIds, allFlags));
    } else {
      log.messageIds.push(messageId);
      this.db.put([recipientId, messageId], recordValue(userIds, flags));
    }
    userIds.forEach((userId, index) => this.add(log, userId, messageId, flags[index]!));
  }

  /** Removes the conversation's records, returning each user's rows, for the caller to write into
   * their chunks. Call inside a write. */
  take(recipientId: number): Map<number, number[]> {
    const log = this.log(recipientId);
    for (const messageId of log.messageIds) this.db.remove([recipientId, messageId]);
    for (const rows of log.rows.values()) this.held -= rows.length / 2;
    this.logs.set(recipientId, { messageIds: [], rows: new Map() });
    return log.rows;
  }

  /** Forgets every log (another writer changed them, or a write was rolled back), to be read
   * again when used. */
  forget(): void {
    this.logs.clear();
    this.held = 0;
  }
}

/** A record's value: its rows grouped by their flags, each group its flags, how many rows it has
 * and their user IDs ascending, the first from 0 and each from the one before, all as LEB128
 * numbers (most rows one byte); after a byte that says how many bytes end the value unread (0 or
 * 1), so that its length is never a multiple of 6, which tells it apart from a record of format 8
 * and before (`PAIR_BYTES` a row). Rows are given as their user IDs (each once) and flags. */
export function recordValue(userIds: readonly number[], flags: readonly number[]): Buffer {
  // Each row as one number, flags above user ID, sorted as numbers: grouped by flags, user IDs
  // ascending in each group. Written in scratch space (allocating it each time cost more than the
  // rest), then copied out.
  if (scratch.rows.length < userIds.length) scratch = { rows: new Float64Array(userIds.length * 2), bytes: Buffer.allocUnsafe(2 + userIds.length * 2 * 15) };
  const rows = scratch.rows.subarray(0, userIds.length);
  for (let index = 0; index < rows.length; index++) rows[index] = flags[index]! * USER_ID_SPAN + userIds[index]!;
  rows.sort();
  const bytes = scratch.bytes;
  let at = 1;
  for (let start = 0; start < rows.length; ) {
    const groupFlags = Math.floor(rows[start]! / USER_ID_SPAN);
    const groupBase = groupFlags * USER_ID_SPAN;
    const groupEnd = groupBase + USER_ID_SPAN;
    let end = start + 1;
    while (end < rows.length && rows[end]! < groupEnd) end++;
    at = writeVarint(bytes, at, groupFlags);
    at = writeVarint(bytes, at, end - start);
    for (let previous = groupBase; start < end; start++) {
      const delta = rows[start]! - previous;
      // Most deltas take one byte.
      if (delta < 0x80) bytes[at++] = delta;
      else at = writeVarint(bytes, at, delta);
      previous = rows[start]!;
    }
  }
  const padding = at % PAIR_BYTES === 0 ? 1 : 0;
  bytes[0] = padding;
  if (padding) bytes[at++] = 0;
  return Buffer.from(bytes.subarray(0, at));
}

/** Where records are made: rows, and their bytes (at most 5 a number: a row's user ID, its group's
 * flags and count, and the first byte and padding). */
let scratch = { rows: new Float64Array(256), bytes: Buffer.allocUnsafe(2 + 256 * 15) };

/** User IDs are below 2^32 (format 8 held them in 4 bytes), and flags below 2^21: a row's flags
 * times this, plus its user ID, is exact as a number. */
const USER_ID_SPAN = 2 ** 32;

/** Visits a record's rows, whichever format it is in. */
export function readRecord(value: Buffer, visit: (userId: number, flags: number) => void): void {
  if (value.length % PAIR_BYTES === 0) {
    for (let at = 0; at < value.length; at += PAIR_BYTES) visit(value.readUInt32LE(at), value.readUInt16LE(at + 4));
    return;
  }
  const numbers = readVarints(value.subarray(1, value.length - value[0]!));
  for (let at = 0; at < numbers.length; ) {
    const flags = numbers[at++]!;
    const count = numbers[at++]!;
    for (let userId = 0, row = 0; row < count; row++) visit((userId += numbers[at++]!), flags);
  }
}
