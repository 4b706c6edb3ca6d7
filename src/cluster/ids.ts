// IDs in a cluster: every kind of ID (messages, users, channels…) is unique across the cluster,
// because a realm's rows may later sit in any node's LMDB beside other realms'. The owner of a realm
// takes blocks of IDs for it from `parley_ids` (one counter per kind, moved on by update-by-revision),
// so IDs of a realm keep increasing even when the realm moves: a new owner starts a fresh block,
// above every block handed out before. Commands take IDs synchronously; the blocks are topped up
// before each write.
import { IdsExhausted, type IdSupply } from '../realm/log.js';
import { idKinds, type IdKind, type IdSource } from '../store/store.js';
import type { Cluster } from './connection.js';
import { kvCodec } from './watched.js';

/** How many IDs a block holds, and how few may be left before a write tops it up. */
const BLOCK: Partial<Record<IdKind, number>> = { message: 10_000 };
const DEFAULT_BLOCK = 1000;
const HEADROOM = 100;


export class IdBlocks implements IdSupply {
  /** realm → kind → [next, end) */
  private readonly blocks = new Map<number, Map<IdKind, [number, number]>>();

  constructor(private readonly cluster: Cluster) {}

  /** Forgets a realm's blocks (the realm left this node; a new owner starts fresh blocks). */
  forget(realmId: number): void {
    this.blocks.delete(realmId);
  }

  /** Whether every kind's block of the realm has room for a write. */
  ready(realmId: number): boolean {
    const blocks = this.blocks.get(realmId);
    return !idKinds.some((kind) => {
      const block = blocks?.get(kind);
      return !block || block[1] - block[0] < HEADROOM;
    });
  }

  /** Takes new blocks for the kinds running low. */
  async topUp(realmId: number): Promise<void> {
    let blocks = this.blocks.get(realmId);
    if (!blocks) this.blocks.set(realmId, (blocks = new Map()));
    for (const kind of idKinds) {
      const block = blocks.get(kind);
      if (block && block[1] - block[0] >= HEADROOM) continue;
      blocks.set(kind, await this.reserve(kind, BLOCK[kind] ?? DEFAULT_BLOCK));
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
    };
  }

  /** Moves the kind's counter on by `size`: the IDs in between are this node's. */
  private async reserve(kind: IdKind, size: number): Promise<[number, number]> {
    for (;;) {
      const current = await this.cluster.ids.get(kind);
      const last = current && current.operation === 'PUT' ? (kvCodec.unpack(current.value) as number) : 0;
      try {
        if (current) await this.cluster.ids.update(kind, kvCodec.pack(last + size), current.revision);
        else await this.cluster.ids.create(kind, kvCodec.pack(last + size));
        return [last + 1, last + size + 1];
      } catch {
        // Another node moved the counter first: read it again.
      }
    }
  }
}
