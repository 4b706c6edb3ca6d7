// Per-user message rows (Zulip's UserMessage): which messages a user has, with the user's flag
// bits. Stored in chunks so that a window of thousands of messages is read and updated with a few
// LMDB reads and writes, not one per message:
//
//   key [userId, chunkNo] → value: entries sorted by message ID, 4 bytes each —
//                           uint16 offset (messageId − chunkNo·SPAN), uint16 flags
//
// A chunk covers SPAN consecutive message IDs (at most SPAN entries, 1 KiB: small enough to stay
// off LMDB's overflow pages and cheap to rewrite when a message is appended). Message IDs are
// server-wide and increasing, so a user's new message lands in their last chunk.
import type { Database } from 'lmdb';

export const SPAN = 256;
const ENTRY_BYTES = 4;

type Key = [number, number];

/** A chunk decoded for reading: its entries' offsets and flags, in order. */
class Chunk {
  constructor(
    readonly chunkNo: number,
    readonly bytes: Buffer,
  ) {}

  get length(): number {
    return this.bytes.length / ENTRY_BYTES;
  }

  id(index: number): number {
    return this.chunkNo * SPAN + this.bytes.readUInt16LE(index * ENTRY_BYTES);
  }

  flags(index: number): number {
    return this.bytes.readUInt16LE(index * ENTRY_BYTES + 2);
  }

  /** The index of the first entry whose ID is at least `messageId`. */
  lowerBound(messageId: number): number {
    const offset = messageId - this.chunkNo * SPAN;
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.bytes.readUInt16LE(middle * ENTRY_BYTES) < offset) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

export class UserMessageIndex {
  constructor(private readonly db: Database<Buffer, Key>) {}

  /** A chunk of its own (a copy: it may be kept while other reads happen). */
  private chunk(userId: number, chunkNo: number): Chunk | undefined {
    const bytes = this.db.getBinary([userId, chunkNo]);
    return bytes ? new Chunk(chunkNo, bytes) : undefined;
  }

  /** A chunk's bytes in lmdb-js's shared read buffer (no copy), valid only until the next read. */
  private readShared(userId: number, chunkNo: number): Buffer | undefined {
    const shared = this.db.getBinaryFast([userId, chunkNo]);
    // The shared buffer reports the value's size as its length; a view of exactly that size.
    return shared?.subarray(0, shared.length);
  }

  /** The user's flags on a message, or undefined when the user has no row for it. */
  get(userId: number, messageId: number): number | undefined {
    const bytes = this.readShared(userId, Math.floor(messageId / SPAN));
    const chunk = bytes && new Chunk(Math.floor(messageId / SPAN), bytes);
    if (!chunk) return undefined;
    const index = chunk.lowerBound(messageId);
    return index < chunk.length && chunk.id(index) === messageId ? chunk.flags(index) : undefined;
  }

  /** Sets one row (creating it if needed); call inside a write. */
  put(userId: number, messageId: number, flags: number): void {
    this.apply(userId, [[messageId, flags]]);
  }

  /** Removes one row, if the user has it; call inside a write. */
  remove(userId: number, messageId: number): void {
    this.apply(userId, [[messageId, undefined]]);
  }

  /** Sets (or, with undefined, removes) many rows of one user: one write per chunk touched. */
  apply(userId: number, changes: Iterable<readonly [messageId: number, flags: number | undefined]>): void {
    const byChunk = new Map<number, [offset: number, flags: number | undefined][]>();
    for (const [messageId, flags] of changes) {
      const chunkNo = Math.floor(messageId / SPAN);
      let chunk = byChunk.get(chunkNo);
      if (!chunk) byChunk.set(chunkNo, (chunk = []));
      chunk.push([messageId - chunkNo * SPAN, flags]);
    }
    for (const [chunkNo, chunkChanges] of byChunk) this.rewrite(userId, chunkNo, chunkChanges.sort((a, b) => a[0] - b[0]));
  }

  /** Merges a chunk's entries with changes sorted by offset (the last change of an offset wins)
   * and stores the result. */
  private rewrite(userId: number, chunkNo: number, changes: readonly [offset: number, flags: number | undefined][]): void {
    const existing = this.readShared(userId, chunkNo);
    const old = existing ?? Buffer.alloc(0);
    const [first] = changes;
    // The common case, a new message: one row after every row of the chunk.
    if (changes.length === 1 && first![1] !== undefined && (old.length === 0 || old.readUInt16LE(old.length - ENTRY_BYTES) < first![0])) {
      const appended = Buffer.allocUnsafe(old.length + ENTRY_BYTES);
      old.copy(appended);
      appended.writeUInt16LE(first![0], old.length);
      appended.writeUInt16LE(first![1], old.length + 2);
      this.db.put([userId, chunkNo], appended);
      return;
    }
    const out = Buffer.allocUnsafe(old.length + changes.length * ENTRY_BYTES);
    const entries = new Chunk(chunkNo, old);
    let written = 0;
    let at = 0;
    for (let next = 0; next < changes.length; next++) {
      const [offset, flags] = changes[next]!;
      if (changes[next + 1]?.[0] === offset) continue;
      // The entries before this change are copied as one run.
      const index = entries.lowerBound(chunkNo * SPAN + offset);
      written += old.copy(out, written, at * ENTRY_BYTES, index * ENTRY_BYTES);
      at = index < entries.length && entries.id(index) === chunkNo * SPAN + offset ? index + 1 : index;
      if (flags !== undefined) {
        out.writeUInt16LE(offset, written);
        out.writeUInt16LE(flags, written + 2);
        written += ENTRY_BYTES;
      }
    }
    written += old.copy(out, written, at * ENTRY_BYTES);
    if (written === 0) {
      if (existing) this.db.remove([userId, chunkNo]);
      return;
    }
    this.db.put([userId, chunkNo], out.subarray(0, written));
  }

  /** The user's rows from `from` (inclusive) on, oldest first, or from `from` back when reverse. */
  *range(userId: number, from: number, reverse = false): Generator<[messageId: number, flags: number]> {
    const first = Math.floor(Math.max(from, 0) / SPAN);
    const range = reverse ? { start: [userId, first], end: [userId, -1], reverse: true } : { start: [userId, first], end: [userId, Number.MAX_SAFE_INTEGER] };
    for (const { key, value } of this.db.getRange(range) as Iterable<{ key: Key; value: Buffer }>) {
      const chunk = new Chunk(key[1], value);
      if (reverse) {
        let index = chunk.lowerBound(from + 1) - 1;
        for (; index >= 0; index--) yield [chunk.id(index), chunk.flags(index)];
      } else {
        for (let index = chunk.lowerBound(from); index < chunk.length; index++) yield [chunk.id(index), chunk.flags(index)];
      }
    }
  }

  /** Looks up one user's flags on messages asked for in (mostly) increasing or decreasing order,
   * reading each chunk once while consecutive lookups stay in it. */
  reader(userId: number): (messageId: number) => number | undefined {
    let current: Chunk | undefined;
    let currentNo = -1;
    return (messageId) => {
      const chunkNo = Math.floor(messageId / SPAN);
      if (chunkNo !== currentNo) {
        current = this.chunk(userId, chunkNo);
        currentNo = chunkNo;
      }
      if (!current) return undefined;
      const index = current.lowerBound(messageId);
      return index < current.length && current.id(index) === messageId ? current.flags(index) : undefined;
    };
  }
}
