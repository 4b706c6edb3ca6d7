// IDs in a cluster: every kind of ID (messages, users, channels…) is unique across the cluster,
// because a realm's rows may later sit in any node's LMDB beside other realms'. The owner of a realm
// takes blocks of IDs for it from `parley_ids` (one counter per kind, moved on by update-by-revision),
// so IDs of a realm keep increasing even when the realm moves: a new owner starts a fresh block,
// above every block handed out before. Commands take IDs synchronously; the blocks are topped up
// before each write. A write that checks first (a send) makes sure of every ID it may take before
// its first change (`ensure`): one wanting more than its block has left is refused having changed
// nothing, and the realm's next block is made large enough for it.
import { IdsExhausted, type IdSupply } from '../realm/log.js';
import { idKinds, type IdKind, type IdSource } from '../store/store.js';
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

/** Whether a block ([next, end)) is too low for a write: under the headroom, or under what a write
 * wanted of it at once. */
const low = (block: [number, number] | undefined, wanted = 0): boolean => !block || block[1] - block[0] < Math.max(HEADROOM, wanted);

export class IdBlocks implements IdSupply {
  /** realm → kind → [next, end) */
  private readonly blocks = new Map<number, Map<IdKind, [number, number]>>();
  /** realm → kind → how many IDs a write wanted at once and did not find (its next block holds them). */
  private readonly wanted = new Map<number, Map<IdKind, number>>();

  constructor(private readonly counters: IdCounters) {}

  /** Forgets a realm's blocks (the realm left this node; a new owner starts fresh blocks). */
  forget(realmId: number): void {
    this.blocks.delete(realmId);
    this.wanted.delete(realmId);
  }

  /** Whether every kind's block of the realm has room for a write. */
  ready(realmId: number): boolean {
    const blocks = this.blocks.get(realmId);
    const wanted = this.wanted.get(realmId);
    return !idKinds.some((kind) => low(blocks?.get(kind), wanted?.get(kind)));
  }

  /** Takes new blocks for the kinds running low, each with room for what a write wanted of it. */
  async topUp(realmId: number): Promise<void> {
    let blocks = this.blocks.get(realmId);
    if (!blocks) this.blocks.set(realmId, (blocks = new Map()));
    for (const kind of idKinds) {
      const wanted = this.wanted.get(realmId)?.get(kind) ?? 0;
      if (!low(blocks.get(kind), wanted)) continue;
      blocks.set(kind, await this.reserve(kind, Math.max(BLOCK[kind] ?? DEFAULT_BLOCK, wanted + HEADROOM)));
      this.wanted.get(realmId)?.delete(kind);
    }
  }

  /** The IDs of one realm, for the store while a command of the realm runs. */
  sourceFor(realmId: number): IdSource {
    return {
      next: (kind) => {
        const block = this.blocks.get(realmId)?.get(kind);
        if (!block || block[0] >= block[1]) throw new IdsExhausted(`realm ${realmId} has no ${kind} IDs left in its block`);
        return block[0]++;
      },
      ensure: (kind, count) => {
        const block = this.blocks.get(realmId)?.get(kind);
        if (block && block[1] - block[0] >= count) return;
        let wanted = this.wanted.get(realmId);
        if (!wanted) this.wanted.set(realmId, (wanted = new Map()));
        wanted.set(kind, Math.max(count, wanted.get(kind) ?? 0));
        throw new IdsExhausted(`realm ${realmId} wants ${count} ${kind} IDs at once, more than its block holds`);
      },
    };
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
