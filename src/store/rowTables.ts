// Rows held in memory as typed arrays, sorted by message ID: what the hot read paths (windows of
// messages, flag updates by narrow) scan instead of LMDB's chunks and records. LMDB stays the
// durable copy; these tables are loaded from it on first use and kept in step with every write to
// it, or dropped (and loaded again when next needed) when a write changes them other than at the
// end. A budget bounds the rows held; the tables used least recently are dropped first.

/** The index of the first of `ids[low..high)` (ascending) at least `value`: high when none is. */
export function lowerBoundIn(ids: Uint32Array, value: number, low: number, high: number): number {
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Rows of one kind: message IDs ascending, each with two numbers of the row's own. */
export class RowTable {
  ids: Uint32Array;
  /** A user's flag bits, or a channel message's topic (an index into `names`). */
  first: Uint32Array;
  /** A user's row's conversation (recipient ID); unused for channels. */
  second: Uint32Array;
  length = 0;

  constructor(capacity: number) {
    this.ids = new Uint32Array(Math.max(capacity, 16));
    this.first = new Uint32Array(this.ids.length);
    this.second = new Uint32Array(this.ids.length);
  }

  /** The index of the first row whose ID is at least `messageId` (length when none is). */
  lowerBound(messageId: number): number {
    return lowerBoundIn(this.ids, messageId, 0, this.length);
  }

  /** As lowerBound from `from`, for IDs searched in ascending order: it gallops from `from` (the
   * one before's place), so an ID a few rows on is found in a few steps, not a full search. */
  seek(messageId: number, from: number): number {
    const ids = this.ids;
    let low = from;
    let step = 1;
    while (low + step < this.length && ids[low + step - 1]! < messageId) {
      low += step;
      step *= 2;
    }
    return lowerBoundIn(ids, messageId, low, Math.min(low + step, this.length));
  }

  /** The index of the row of `messageId`, or -1. */
  indexOf(messageId: number): number {
    const at = this.lowerBound(messageId);
    return at < this.length && this.ids[at] === messageId ? at : -1;
  }

  get last(): number {
    return this.length === 0 ? -1 : this.ids[this.length - 1]!;
  }

  /** Adds a row after the last (its ID above every other). */
  push(id: number, first: number, second: number): void {
    if (this.length === this.ids.length) {
      const grow = (from: Uint32Array) => {
        const to = new Uint32Array(from.length * 2);
        to.set(from);
        return to;
      };
      this.ids = grow(this.ids);
      this.first = grow(this.first);
      this.second = grow(this.second);
    }
    this.ids[this.length] = id;
    this.first[this.length] = first;
    this.second[this.length] = second;
    this.length++;
  }
}

/** Tables by key (a user, a channel), holding at most `budget` rows together (a table larger than
 * the budget is held alone); the table used least recently is dropped first. */
export class TableCache<T extends RowTable> {
  /** Each table with when it was last used and the write that last loaded or changed it. */
  private readonly tables = new Map<number, { table: T; used: number; written: number }>();
  private rows = 0;
  private clock = 0;
  /** The write under way (its rollback drops the tables marked with it; a set of keys per write
   * cost more on the send path, where a write changes every recipient's table). */
  private write = 0;

  constructor(private readonly budget: number) {}

  get(key: number): T | undefined {
    const held = this.tables.get(key);
    if (!held) return undefined;
    held.used = ++this.clock;
    return held.table;
  }

  /** The key's table, loaded by `load` when not held. */
  load(key: number, load: () => T): T {
    const held = this.get(key);
    if (held) return held;
    const table = load();
    this.tables.set(key, { table, used: ++this.clock, written: this.write });
    this.rows += table.length;
    while (this.rows > this.budget && this.tables.size > 1) {
      let oldest = key;
      let oldestUse = Infinity;
      for (const [other, { used }] of this.tables) {
        if (used < oldestUse) [oldest, oldestUse] = [other, used];
      }
      this.delete(oldest);
    }
    return table;
  }

  /** A held table was changed in place, `grown` rows added. */
  changed(key: number, grown = 0): void {
    this.rows += grown;
    const held = this.tables.get(key);
    if (held) held.written = this.write;
  }

  /** A write begins: what the one before loaded or changed is settled. */
  beginWrite(): void {
    this.write++;
  }

  /** The write under way was rolled back: the tables it loaded or changed go. */
  dropWritten(): void {
    for (const [key, { written }] of this.tables) if (written === this.write) this.delete(key);
    this.write++;
  }

  delete(key: number): void {
    const held = this.tables.get(key);
    if (!held) return;
    this.tables.delete(key);
    this.rows -= held.table.length;
  }

  clear(): void {
    this.tables.clear();
    this.rows = 0;
  }
}
