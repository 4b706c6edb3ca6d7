// A fixed-size hash table in shared memory, which every thread holding its share reads and writes
// as one: the rate limiter's buckets and the login limiter's failures, so that N I/O threads allow
// what one would. An entry is `width` numbers under the 64-bit hash of its key's string (seeded per
// process, so that nobody can choose keys that collide); two keys of one hash share an entry, which
// only makes their limits stricter. Entries are changed only under the lock of their group of
// GROUP_SIZE: a spin lock (Atomics.wait is not allowed on the main thread), held for a few
// arithmetic operations.
//
// There is no deletion: an entry whose numbers read as a new key's (a bucket full again, failures
// all outside their window: the owner's `isFree`) is taken by the next key of its group that has
// none, as it is, since it means nothing any more. When a group's entries are all live (a flood of
// keys, far beyond what the table was sized for), a further key shares the one its hash picks
// without taking it: it is limited together with that entry's key, more strictly than alone, and
// nothing throws or waits. Such a key counts from a new entry once one of its group is free again,
// so under a flood it may get one window's allowance more, once.
import { randomInt } from 'node:crypto';

/** Plain data (SharedArrayBuffers and a number) that a worker's `workerData` or a port carries. */
export interface SharedTableShare {
  /** Int32 per group: 1 while a thread changes one of its entries. */
  readonly locks: SharedArrayBuffer;
  /** Int32 pairs: each entry's key hash (zeros for one never taken, which is free). */
  readonly keys: SharedArrayBuffer;
  /** Float64: `width` numbers per entry. */
  readonly values: SharedArrayBuffer;
  /** Seeds the key hash. */
  readonly seed: number;
}

const GROUP_SIZE = 8;
/** The sections under a lock only compute and cannot throw, so a lock still held after this many
 * tries (a fraction of a second) was left by a thread stopped inside one (Worker.terminate), or its
 * holder was paused that long (a garbage collection, the scheduler): the waiting thread goes on
 * rather than hang. Two threads may then change one group at once, which can miscount a limit
 * for a moment, no worse. */
const SPINS_BEFORE_TAKEOVER = 1 << 24;

export class SharedTable {
  /** The entries' numbers: an entry's are at the offset `use` is given. */
  readonly values: Float64Array;
  private readonly locks: Int32Array;
  private readonly keys: Int32Array;

  /** A share of at least `entries` entries (whole groups) of `width` numbers each. */
  static share(entries: number, width: number): SharedTableShare {
    const groups = Math.max(1, Math.ceil(entries / GROUP_SIZE));
    return {
      locks: new SharedArrayBuffer(groups * Int32Array.BYTES_PER_ELEMENT),
      keys: new SharedArrayBuffer(groups * GROUP_SIZE * 2 * Int32Array.BYTES_PER_ELEMENT),
      values: new SharedArrayBuffer(groups * GROUP_SIZE * width * Float64Array.BYTES_PER_ELEMENT),
      seed: randomInt(2 ** 32 - 1),
    };
  }

  constructor(
    readonly share: SharedTableShare,
    private readonly width: number,
  ) {
    this.values = new Float64Array(share.values);
    this.locks = new Int32Array(share.locks);
    this.keys = new Int32Array(share.keys);
  }

  /** Runs `use` on the entry of `key` (the offset of its numbers in `values`), under its group's
   * lock; `isFree` tells whether an entry's numbers (at an offset) read as a new key's. */
  with<T>(key: string, isFree: (offset: number) => boolean, use: (offset: number) => T): T {
    const [high, low] = hash(key, this.share.seed);
    const group = (high >>> 0) % this.locks.length;
    // Spins for the lock (see SPINS_BEFORE_TAKEOVER).
    for (let spins = 0; Atomics.compareExchange(this.locks, group, 0, 1) !== 0 && spins < SPINS_BEFORE_TAKEOVER; spins++);
    try {
      return use(this.entry(group, high, low, isFree) * this.width);
    } finally {
      Atomics.store(this.locks, group, 0);
    }
  }

  /** The entry of a key in its group (under the group's lock): its own, else a free one it takes,
   * else the one it shares. */
  private entry(group: number, high: number, low: number, isFree: (offset: number) => boolean): number {
    const first = group * GROUP_SIZE;
    let free = -1;
    for (let entry = first; entry < first + GROUP_SIZE; entry++) {
      if (this.keys[2 * entry] === high && this.keys[2 * entry + 1] === low) return entry;
      if (free < 0 && isFree(entry * this.width)) free = entry;
    }
    if (free < 0) return first + ((low >>> 0) % GROUP_SIZE);
    this.keys[2 * free] = high;
    this.keys[2 * free + 1] = low;
    return free;
  }
}

/** A 64-bit hash of a string as two Int32 halves: cyrb53's mixing, both halves kept. */
function hash(key: string, seed: number): [number, number] {
  let high = 0xdeadbeef ^ seed;
  let low = 0x41c6ce57 ^ seed;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    high = Math.imul(high ^ code, 2654435761);
    low = Math.imul(low ^ code, 1597334677);
  }
  high = Math.imul(high ^ (high >>> 16), 2246822507) ^ Math.imul(low ^ (low >>> 13), 3266489909);
  low = Math.imul(low ^ (low >>> 16), 2246822507) ^ Math.imul(high ^ (high >>> 13), 3266489909);
  return [high, low];
}
