// The kinds of IDs a store hands out, and the counters several stores of one process share (several
// realm threads: ARCHITECTURE.md, "Several realm threads"): one 64-bit cell a kind in shared memory.
// Every shard raises each cell to the last ID it recorded when it opens, before any realm starts;
// then each write takes the next ID with one atomic add, and its shard records it in the same
// transaction as the row that uses it. So every committed ID is below the counters after a restart,
// IDs stay unique server-wide, and one writer's IDs only grow.

export const idKinds = ['realm', 'user', 'channel', 'group', 'message', 'recipient', 'field', 'draft', 'scheduled', 'folder', 'linkifier', 'attachment', 'realmEmoji', 'savedSnippet', 'playground', 'navigationView', 'invite', 'notification', 'submessage', 'realmExport'] as const;
export type IdKind = (typeof idKinds)[number];

const slot = new Map<IdKind, number>(idKinds.map((kind, index) => [kind, index]));

/** Cells after the counters: how many shards opened, and how many realms they hold in all. */
const OPENED = idKinds.length;
const REALMS = idKinds.length + 1;

/** The counters' memory, to hand to every thread that opens a shard. */
export const newIdCountersShare = (): SharedArrayBuffer => new SharedArrayBuffer((idKinds.length + 2) * BigInt64Array.BYTES_PER_ELEMENT);

export class SharedIdCounters {
  private readonly cells: BigInt64Array;

  constructor(share: SharedArrayBuffer) {
    this.cells = new BigInt64Array(share);
  }

  /** The next ID of a kind, unique among every store of the process. */
  next(kind: IdKind): number {
    return Number(Atomics.add(this.cells, slot.get(kind)!, 1n) + 1n);
  }

  /** Tells the counters of a shard that opened: the last ID it recorded of each kind (its counters
   * rise to them), and how many realms it holds. */
  opened(lastIds: (kind: IdKind) => number, realms: number): void {
    for (const kind of idKinds) {
      const index = slot.get(kind)!;
      const last = BigInt(lastIds(kind));
      for (let seen = Atomics.load(this.cells, index); seen < last; ) {
        const was = Atomics.compareExchange(this.cells, index, seen, last);
        if (was === seen) break;
        seen = was;
      }
    }
    Atomics.add(this.cells, REALMS, BigInt(realms));
    Atomics.add(this.cells, OPENED, 1n);
    Atomics.notify(this.cells, OPENED);
  }

  /** Resolves once `shards` shards opened: from then on no ID any of them recorded is handed out
   * again. Answers how many realms they hold in all. */
  async allOpened(shards: number): Promise<number> {
    for (let opened = Atomics.load(this.cells, OPENED); opened < BigInt(shards); opened = Atomics.load(this.cells, OPENED)) {
      const waiting = Atomics.waitAsync(this.cells, OPENED, opened);
      if (waiting.async) await waiting.value;
    }
    return Number(Atomics.load(this.cells, REALMS));
  }
}
