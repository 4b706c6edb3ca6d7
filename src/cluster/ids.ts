// IDs in a cluster: every kind of ID (messages, users, channels…) is unique across the cluster,
// because a realm's rows may later sit in any node's LMDB beside other realms'. The owner of a realm
// takes blocks of IDs for it from `parley_ids` (one counter per kind, moved on by update-by-revision),
// so IDs of a realm keep increasing even when the realm moves: a new owner starts a fresh block,
// above every block handed out before. Commands take IDs synchronously; the blocks are topped up
// before each write. A write that checks first (a send) makes sure of every ID it may take before
// its first change (`ensure`): one wanting more than the realm's blocks have left is refused having
// changed nothing, and from then on the blocks are topped up before each write to hold the most a
// write wanted (a new block joins what is left of the old).
import { IdsExhausted, type IdSupply } from '../realm/log.js';
import { idKinds, type IdKind } from '../store/idCounters.js';
import type { IdSource } from '../store/store.js';
import { kvCodec } from './watched.js';

/** How many IDs a block holds, and how few may be left before a write tops it up. */
const BLOCK: Partial<Record<IdKind, number>> = { message: 10_000 };
const DEFAULT_BLOCK = 1000;
const HEADROOM = 100;

/** The cluster's counters of IDs, one per kind (`parley_ids`, a NATS KV bucket), as blocks move them. */
export interface IdCounters {
  get(kind: string): Promise<{ operation: string; value: Uint8Array; revision: number } | null>;
  update(kind: string, value: Uint8Array, revision: number): Promise<unknown>;
  create(kind: string, value: Uint8Array): Promise<unknown>;
}

/** A realm's IDs of one kind: the ranges ([next, end)) taken from the counter, oldest first (each
 * lies above the ones before, so IDs keep increasing), how many are left in them, and the most a
 * write made sure of at once (`ensure`), which the ranges are kept able to give before each write. */
class KindIds {
  private readonly ranges: [number, number][] = [];
  left = 0;
  mostWanted = 0;

  /** Too few left for a write: under the headroom, or under the most a write wanted. */
  get low(): boolean {
    return this.left < Math.max(HEADROOM, this.mostWanted);
  }

  add(range: [number, number]): void {
    this.ranges.push(range);
    this.left += range[1] - range[0];
  }

  take(): number | undefined {
    const range = this.ranges[0];
    if (!range) return undefined;
    const id = range[0]++;
    if (range[0] === range[1]) this.ranges.shift();
    this.left--;
    return id;
  }
}

function kindIdsOf(kinds: Map<IdKind, KindIds>, kind: IdKind): KindIds {
  let ids = kinds.get(kind);
  if (!ids) kinds.set(kind, (ids = new KindIds()));
  return ids;
}

export class IdBlocks implements IdSupply {
  private readonly realms = new Map<number, Map<IdKind, KindIds>>();

  constructor(private readonly counters: IdCounters) {}

  /** Forgets a realm's blocks (the realm left this node; a new owner starts fresh blocks). */
  forget(realmId: number): void {
    this.realms.delete(realmId);
  }

  /** Whether every kind of the realm has room for a write. */
  ready(realmId: number): boolean {
    const kinds = this.realms.get(realmId);
    return kinds !== undefined && !idKinds.some((kind) => kinds.get(kind)?.low ?? true);
  }

  /** Takes a new block for each kind running low, with room for the most a write wanted of it. The
   * realm's kinds are looked up once: forgotten meanwhile (it left this node), the blocks taken
   * after go with what was forgotten, never to a later owner of the realm here. */
  async topUp(realmId: number): Promise<void> {
    const kinds = this.kindsOf(realmId);
    for (const kind of idKinds) {
      const ids = kindIdsOf(kinds, kind);
      if (ids.low) ids.add(await this.reserve(kind, Math.max(BLOCK[kind] ?? DEFAULT_BLOCK, ids.mostWanted + HEADROOM)));
    }
  }

  /** The IDs of one realm, for the store while a command of the realm runs. */
  sourceFor(realmId: number): IdSource {
    // What the write took of each kind: one that runs out without having made sure of its IDs is
    // refused, and the realm keeps twice as many at hand for its next try (a large import
    // converges in a few tries instead of running out at the same point every time).
    let taken: Map<IdKind, number> | undefined;
    return {
      next: (kind) => {
        const id = this.realms.get(realmId)?.get(kind)?.take();
        const count = (taken?.get(kind) ?? 0) + 1;
        if (id === undefined) {
          const ids = kindIdsOf(this.kindsOf(realmId), kind);
          ids.mostWanted = Math.max(ids.mostWanted, 2 * count);
          throw new IdsExhausted(`realm ${realmId} has no ${kind} IDs left in its blocks`);
        }
        (taken ??= new Map()).set(kind, count);
        return id;
      },
      ensure: (kind, count) => {
        const ids = kindIdsOf(this.kindsOf(realmId), kind);
        if (count > ids.mostWanted) ids.mostWanted = count;
        if (ids.left < count) throw new IdsExhausted(`realm ${realmId} wants ${count} ${kind} IDs at once, more than its blocks hold`);
      },
    };
  }

  /** The realm's kinds, a new entry if it has none yet. */
  private kindsOf(realmId: number): Map<IdKind, KindIds> {
    let kinds = this.realms.get(realmId);
    if (!kinds) this.realms.set(realmId, (kinds = new Map()));
    return kinds;
  }

  /** Moves the kind's counter on by `size`: the IDs in between are this node's. */
  private async reserve(kind: IdKind, size: number): Promise<[number, number]> {
    for (;;) {
      const current = await this.counters.get(kind);
      const last = current && current.operation === 'PUT' ? (kvCodec.unpack(current.value) as number) : 0;
      try {
        if (current) await this.counters.update(kind, kvCodec.pack(last + size), current.revision);
        else await this.counters.create(kind, kvCodec.pack(last + size));
        return [last + 1, last + size + 1];
      } catch {
        // Another node moved the counter first: read it again.
      }
    }
  }
}
