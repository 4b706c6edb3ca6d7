// The full-text index's posting lists: for each realm and term, the IDs of the messages holding
// it, ascending, in chunks:
//
//   searchChunks [realmId, term, firstId] → the chunk's IDs after its first, as LEB128 deltas
//                                           (each from the one before)
//
// A term's chunks depend only on the IDs it holds, never on the order they came and went in: its
// list is cut before every ID that `startsChunk` picks (one ID in CHUNK_SPACING, by a hash of the
// ID), and each chunk is keyed by its first ID. Two copies of a realm holding the same postings
// hold the same rows, however each got there: a copy rebuilt from messages, one fed another's
// change sets, one that replayed a log from before the chunks. A write batch's new messages are
// appended to each term's last chunk at once (memory remembers where it is). Format 6 kept a row
// per posting: 641 bytes a message for the index (100,000 generated messages), where chunks take
// 30, and a put per posting on the send path.
import type { Database, RangeOptions } from 'lmdb';
import { BoundedCache } from './boundedCache.js';
import { readVarints, writeVarint } from './varints.js';

export type ChunkKey = [realmId: number, term: string, firstId: number];

/** A chunk's IDs, its key's first. */
type Chunk = number[];

/** A chunk as stored. */
type Row = { key: ChunkKey; value: Buffer };

/** How many IDs of a term a chunk holds on average (a power of two). */
export const CHUNK_SPACING = 256;
const NEWEST = Number.MAX_SAFE_INTEGER;

/** Whether a chunk starts at this ID wherever a term holds it (past the term's first ID): one ID
 * in CHUNK_SPACING, by a hash of the ID's low 32 bits. */
export function startsChunk(id: number): boolean {
  let hash = Math.imul(id ^ (id >>> 16), 0x45d9f3b);
  hash = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
  return ((hash ^ (hash >>> 16)) & (CHUNK_SPACING - 1)) === 0;
}

/** A term's IDs cut into chunks: before each ID that starts one, the first ID aside. */
function cut(ids: readonly number[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const [index, id] of ids.entries()) {
    if (index === 0 || startsChunk(id)) chunks.push([id]);
    else chunks.at(-1)!.push(id);
  }
  return chunks;
}

/** IDs as LEB128 deltas from `previous` on, after `before` (a chunk's bytes, when appending). */
function encode(previous: number, ids: readonly number[], before?: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe((before?.length ?? 0) + ids.length * 5);
  if (before) bytes.set(before);
  let at = before?.length ?? 0;
  for (const id of ids) {
    at = writeVarint(bytes, at, id - previous);
    previous = id;
  }
  return bytes.subarray(0, at);
}

function decode(firstId: number, bytes: Uint8Array): Chunk {
  const ids = [firstId, ...readVarints(bytes)];
  for (let index = 1; index < ids.length; index++) ids[index] = ids[index - 1]! + ids[index]!;
  return ids;
}

/** The sorted union of two ascending lists, each ID once. */
function merge(a: readonly number[], b: readonly number[]): number[] {
  const merged: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (merged.at(-1) !== next) merged.push(next);
  }
  return merged;
}

/** How many terms' last chunks memory remembers; past it, those remembered longest ago go. */
const KNOWN_TAILS = 100_000;

/** A term's last chunk as memory remembers it: its first and last IDs, and the `mark` of its stored
 * bytes (checked before each append: memory found disagreeing with the store is read again). */
interface Tail {
  firstId: number;
  lastId: number;
  mark: number;
}

/** A chunk's stored bytes in brief: their length and their last four (the last IDs' deltas). */
function mark(bytes: Uint8Array): number {
  let last = 0;
  for (let at = Math.max(0, bytes.length - 4); at < bytes.length; at++) last = last * 256 + bytes[at]!;
  return bytes.length * 0x1_0000_0000 + last;
}

export class PostingLists {
  /** Terms' last chunks, by realm and term: a new message's posting is appended to its bytes
   * without a range read or decoding them. Forgotten with a write that was rolled back; should
   * a remembered one be found not to be the stored chunk all the same (its length or last four
   * bytes differ: a rollback memory was told of late, say), the chunk is read again, as appending
   * deltas from a wrong last ID would store wrong IDs. A chunk that differs only before its last
   * four bytes is not told apart. */
  private readonly tails = new BoundedCache<string, Tail>(KNOWN_TAILS);

  constructor(private readonly chunks: Database<Buffer, ChunkKey>) {}

  /** Adds message IDs (ascending) to a term's list; call inside a write. New messages' IDs come
   * after every other and land in the last chunk (or start new ones); an edited message's may
   * fall in any. `fresh`: the caller knows the term holds none yet (no look-up for its chunks). */
  add(realmId: number, term: string, ids: readonly number[], fresh = false): void {
    let tail = fresh ? undefined : this.tail(realmId, term);
    while (tail && ids[0]! > tail.lastId) {
      if (this.append(realmId, term, tail, ids)) return;
      // Not the stored last chunk (forgotten by `append`): as the store has it.
      tail = this.tail(realmId, term);
    }
    if (!tail) {
      // The term's first messages: its last chunk is the last of theirs.
      const chunks = cut(ids);
      const written = this.write(realmId, term, chunks);
      const last = chunks.at(-1)!;
      this.tails.set(`${realmId}:${term}`, { firstId: last[0]!, lastId: last.at(-1)!, mark: written });
      return;
    }
    this.tails.delete(`${realmId}:${term}`);
    for (let from = 0; from < ids.length; ) {
      // The chunk each ID falls in (before the term's first: its first chunk), with the IDs after
      // it that fall there too, cut anew.
      const owner = this.chunkOf(realmId, term, ids[from]!) ?? this.firstChunk(realmId, term)!;
      const next = this.keyAfter(realmId, term, owner[0]!);
      let to = from + 1;
      while (to < ids.length && (next === undefined || ids[to]! < next)) to++;
      const merged = merge(owner, ids.slice(from, to));
      if (merged[0] !== owner[0]) this.chunks.remove([realmId, term, owner[0]!]);
      this.write(realmId, term, cut(merged));
      from = to;
    }
  }

  /** Takes message IDs (ascending) out of a term's list; call inside a write. */
  remove(realmId: number, term: string, ids: readonly number[]): void {
    this.tails.delete(`${realmId}:${term}`);
    for (let from = 0; from < ids.length; ) {
      const owner = this.chunkOf(realmId, term, ids[from]!);
      const next = this.keyAfter(realmId, term, owner?.[0] ?? -1);
      let to = from + 1;
      while (to < ids.length && (next === undefined || ids[to]! < next)) to++;
      if (owner) {
        const gone = new Set(ids.slice(from, to));
        const kept = owner.filter((id) => !gone.has(id));
        if (kept[0] !== owner[0]) {
          // Its first ID went: what is left joins the chunk before (none: the term's first chunk
          // now starts at what is left).
          this.chunks.remove([realmId, term, owner[0]!]);
          const before = this.chunkOf(realmId, term, owner[0]! - 1);
          if (kept.length > 0) this.write(realmId, term, [before ? [...before, ...kept] : kept]);
        } else {
          this.write(realmId, term, [kept]);
        }
      }
      from = to;
    }
  }

  /** The IDs holding a term from `from` (inclusive) on, or back when reverse. */
  *holding(realmId: number, term: string, from: number, reverse: boolean): Generator<number> {
    if (reverse) {
      for (const { key, value } of this.chunks.getRange({ start: [realmId, term, from], end: [realmId, term, -1], reverse: true })) {
        const ids = decode(key[2], value);
        for (let index = ids.length - 1; index >= 0; index--) if (ids[index]! <= from) yield ids[index]!;
      }
      return;
    }
    const owner = this.chunkOf(realmId, term, from);
    if (owner) for (const id of owner) if (id >= from) yield id;
    for (const { key, value } of this.chunks.getRange({ start: [realmId, term, (owner?.[0] ?? from - 1) + 1], end: [realmId, term, NEWEST] })) yield* decode(key[2], value);
  }

  /** Empties every realm's lists (outside any write). */
  clear(): void {
    this.forget();
    this.chunks.clearSync();
  }

  /** Forgets terms' last chunks: after a write that may have changed some was rolled back. */
  forget(): void {
    this.tails.clear();
  }

  /** Adds IDs after all of a term's: to the bytes of its last chunk up to the first that starts a
   * chunk, then in chunks of their own. False, having changed nothing, when the stored last chunk
   * is not the one memory remembers (it is forgotten: the caller reads the list). */
  private append(realmId: number, term: string, tail: Tail, ids: readonly number[]): boolean {
    const key: ChunkKey = [realmId, term, tail.firstId];
    // getBinaryFast: the bytes in lmdb-js's reused buffer (its `length` set to theirs), valid
    // until the next read; `encode` copies them at once.
    const stored = this.chunks.getBinaryFast(key);
    if (stored === undefined || mark(stored) !== tail.mark) {
      this.tails.delete(`${realmId}:${term}`);
      return false;
    }
    const chunks = cut(ids);
    const joining = startsChunk(ids[0]!) ? [] : chunks.shift()!;
    if (joining.length > 0) {
      const joined = encode(tail.lastId, joining, stored.subarray(0, stored.length));
      this.chunks.put(key, joined);
      tail.mark = mark(joined);
    }
    if (chunks.length > 0) {
      tail.mark = this.write(realmId, term, chunks);
      tail.firstId = chunks.at(-1)![0]!;
    }
    tail.lastId = ids.at(-1)!;
    return true;
  }

  /** A term's last chunk, as memory remembers it or read (then remembered). */
  private tail(realmId: number, term: string): Tail | undefined {
    const known = this.tails.get(`${realmId}:${term}`);
    if (known) return known;
    const last = this.rowAtOrBefore(realmId, term, NEWEST);
    if (!last) return undefined;
    const ids = decode(last.key[2], last.value);
    const tail = { firstId: ids[0]!, lastId: ids.at(-1)!, mark: mark(last.value) };
    this.tails.set(`${realmId}:${term}`, tail);
    return tail;
  }

  /** Puts chunks, each keyed by its first ID; answers the last one's `mark`. */
  private write(realmId: number, term: string, chunks: readonly Chunk[]): number {
    let last = 0;
    for (const chunk of chunks) {
      const encoded = encode(chunk[0]!, chunk.slice(1));
      this.chunks.put([realmId, term, chunk[0]!], encoded);
      last = mark(encoded);
    }
    return last;
  }

  /** The chunk an ID falls in: the last whose first ID is at most the ID. */
  private chunkOf(realmId: number, term: string, id: number): Chunk | undefined {
    const row = this.rowAtOrBefore(realmId, term, id);
    return row && decode(row.key[2], row.value);
  }

  /** The row of the chunk an ID falls in. */
  private rowAtOrBefore(realmId: number, term: string, id: number): Row | undefined {
    return this.firstRow({ start: [realmId, term, id], end: [realmId, term, -1], reverse: true, limit: 1 });
  }

  private firstChunk(realmId: number, term: string): Chunk | undefined {
    const row = this.firstRow({ start: [realmId, term, -1], end: [realmId, term, NEWEST], limit: 1 });
    return row && decode(row.key[2], row.value);
  }

  private firstRow(range: RangeOptions): Row | undefined {
    for (const row of this.chunks.getRange(range)) return row;
    return undefined;
  }

  private keyAfter(realmId: number, term: string, firstId: number): number | undefined {
    for (const key of this.chunks.getKeys({ start: [realmId, term, firstId + 1], end: [realmId, term, NEWEST], limit: 1 })) return key[2];
    return undefined;
  }
}
