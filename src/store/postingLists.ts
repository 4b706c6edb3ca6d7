// The full-text index's posting lists: for each realm and term, the IDs of the messages holding
// it, ascending, in chunks of up to CHUNK_IDS:
//
//   searchChunks [realmId, term, firstId] → the chunk's IDs as LEB128 deltas (the first from the
//                                           key's firstId, each next from the one before)
//
// Every ID of a chunk is at least its key's firstId and below the next chunk's; a chunk keeps its
// key when its first ID is taken out. A write batch's new messages are appended to each term's last
// chunk at once (memory remembers where it is). Format 6 kept a row per posting: 641 bytes a
// message for the index (100,000 generated messages), where chunks take 30, and a put per posting
// on the send path.
import type { Database, RangeOptions } from 'lmdb';
import { BoundedCache } from './boundedCache.js';
import { readVarints, writeVarint } from './varints.js';

export type ChunkKey = [realmId: number, term: string, firstId: number];

/** A chunk's key's firstId and its IDs. */
interface Chunk {
  firstId: number;
  ids: number[];
}

/** The most IDs a chunk holds: at most 5 bytes each, so a chunk never needs an overflow page. */
export const CHUNK_IDS = 256;
const NEWEST = Number.MAX_SAFE_INTEGER;

/** The IDs as a chunk's bytes, after `before` (a chunk's bytes, when appending to it). */
function encode(firstId: number, ids: readonly number[], before?: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe((before?.length ?? 0) + ids.length * 5);
  if (before) bytes.set(before);
  let at = before?.length ?? 0;
  let previous = firstId;
  for (const id of ids) {
    at = writeVarint(bytes, at, id - previous);
    previous = id;
  }
  return bytes.subarray(0, at);
}

function decode(firstId: number, bytes: Uint8Array): number[] {
  const ids = readVarints(bytes);
  let previous = firstId;
  for (let index = 0; index < ids.length; index++) previous = ids[index] = previous + ids[index]!;
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

/** How many terms' last chunks memory remembers; past it, those written longest ago go. */
const KNOWN_TAILS = 100_000;

/** A term's last chunk as memory remembers it: its key's firstId, its last ID and its size. */
interface Tail {
  firstId: number;
  lastId: number;
  count: number;
}

export class PostingLists {
  /** Terms' last chunks, by realm and term: a new message's posting is appended to its bytes
   * without a range read or decoding them. Forgotten with a write that was rolled back. */
  private readonly tails = new BoundedCache<string, Tail>(KNOWN_TAILS);

  constructor(private readonly chunks: Database<Buffer, ChunkKey>) {}

  /** Adds message IDs (ascending) to a term's list; call inside a write. New messages' IDs come
   * after every other and land in the last chunk; an edited message's may fall in any. */
  add(realmId: number, term: string, ids: readonly number[]): void {
    const tail = this.tail(realmId, term);
    if (!tail) {
      // The term's first messages.
      this.rewrite(realmId, term, undefined, ids);
    } else if (ids[0]! > tail.lastId) {
      this.append(realmId, term, tail, ids);
    } else {
      for (let from = 0; from < ids.length; ) {
        const owner = this.chunkOf(realmId, term, ids[from]!) ?? this.firstChunk(realmId, term)!;
        const next = this.keyAfter(realmId, term, owner.firstId);
        let to = from + 1;
        while (to < ids.length && (next === undefined || ids[to]! < next)) to++;
        this.rewrite(realmId, term, owner.firstId, merge(owner.ids, ids.slice(from, to)));
        from = to;
      }
    }
  }

  /** Takes message IDs (ascending) out of a term's list; call inside a write. */
  remove(realmId: number, term: string, ids: readonly number[]): void {
    for (let from = 0; from < ids.length; ) {
      const owner = this.chunkOf(realmId, term, ids[from]!);
      const next = this.keyAfter(realmId, term, owner?.firstId ?? -1);
      let to = from + 1;
      while (to < ids.length && (next === undefined || ids[to]! < next)) to++;
      if (owner) {
        const gone = new Set(ids.slice(from, to));
        this.rewrite(realmId, term, owner.firstId, owner.ids.filter((id) => !gone.has(id)));
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
    if (owner) for (const id of owner.ids) if (id >= from) yield id;
    for (const { key, value } of this.chunks.getRange({ start: [realmId, term, (owner?.firstId ?? from - 1) + 1], end: [realmId, term, NEWEST] })) yield* decode(key[2], value);
  }

  /** Empties every realm's lists (outside any write). */
  clear(): void {
    this.forget();
    this.chunks.clearSync();
  }

  /** Forgets where terms' last chunks are: after a write that may have moved some was rolled back. */
  forget(): void {
    this.tails.clear();
  }

  /** Adds IDs after all of a term's to its last chunk: to its bytes while it has room. */
  private append(realmId: number, term: string, tail: Tail, ids: readonly number[]): void {
    const key: ChunkKey = [realmId, term, tail.firstId];
    if (tail.count + ids.length > CHUNK_IDS) {
      this.rewrite(realmId, term, tail.firstId, [...decode(tail.firstId, this.chunks.getBinary(key)!), ...ids]);
      return;
    }
    // getBinaryFast: the bytes in lmdb-js's reused buffer (its `length` set to theirs), valid until
    // the next read; `encode` copies them at once.
    const bytes = this.chunks.getBinaryFast(key)!;
    this.chunks.put(key, encode(tail.lastId, ids, bytes.subarray(0, bytes.length)));
    tail.lastId = ids.at(-1)!;
    tail.count += ids.length;
    this.tails.set(`${realmId}:${term}`, tail);
  }

  /** A term's last chunk, as memory remembers it or read (then remembered). */
  private tail(realmId: number, term: string): Tail | undefined {
    const known = this.tails.get(`${realmId}:${term}`);
    if (known) return known;
    const found = this.chunkOf(realmId, term, NEWEST);
    return found && this.remember(realmId, term, found.firstId, found.ids);
  }

  private remember(realmId: number, term: string, firstId: number, ids: readonly number[]): Tail {
    const tail = { firstId, lastId: ids.at(-1)!, count: ids.length };
    this.tails.set(`${realmId}:${term}`, tail);
    return tail;
  }

  /** The chunk an ID falls in: the last whose firstId is at most the ID. */
  private chunkOf(realmId: number, term: string, id: number): Chunk | undefined {
    return this.chunkIn({ start: [realmId, term, id], end: [realmId, term, -1], reverse: true, limit: 1 });
  }

  private firstChunk(realmId: number, term: string): Chunk | undefined {
    return this.chunkIn({ start: [realmId, term, -1], end: [realmId, term, NEWEST], limit: 1 });
  }

  private chunkIn(range: RangeOptions): Chunk | undefined {
    for (const { key, value } of this.chunks.getRange(range)) return { firstId: key[2], ids: decode(key[2], value) };
    return undefined;
  }

  private keyAfter(realmId: number, term: string, firstId: number): number | undefined {
    for (const key of this.chunks.getKeys({ start: [realmId, term, firstId + 1], end: [realmId, term, NEWEST], limit: 1 })) return key[2];
    return undefined;
  }

  /** Writes a chunk's IDs anew (none: the chunk goes; no chunk: the term's first), in as many
   * chunks as they need: the first keeps the chunk's key unless an ID below it came in. */
  private rewrite(realmId: number, term: string, firstId: number | undefined, ids: readonly number[]): void {
    const rekeyed = firstId === undefined || (ids.length > 0 && ids[0]! < firstId);
    if (firstId !== undefined && (rekeyed || ids.length === 0)) this.chunks.remove([realmId, term, firstId]);
    let last: { key: number; piece: number[] } | undefined;
    for (let at = 0; at < ids.length; at += CHUNK_IDS) {
      const piece = ids.slice(at, at + CHUNK_IDS);
      const key = at === 0 && !rekeyed ? firstId! : piece[0]!;
      this.chunks.put([realmId, term, key], encode(key, piece));
      last = { key, piece };
    }
    // When the last chunk was rewritten (or the first written), its last piece is the last chunk
    // now; a last chunk emptied leaves the one before it, read again when needed.
    const known = this.tails.get(`${realmId}:${term}`);
    if (firstId !== undefined && known?.firstId !== firstId) return;
    if (last) this.remember(realmId, term, last.key, last.piece);
    else this.tails.delete(`${realmId}:${term}`);
  }
}
