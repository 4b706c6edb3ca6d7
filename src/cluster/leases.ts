// Realm ownership: one lease per realm in the `parley_leases` bucket, taken with create or
// update-by-revision (so two nodes can never both win) and renewed by its holder. A lease whose
// revision has not moved for `leaseMs`, as this node sees it, has lapsed and may be taken over; the
// epoch goes up with every new holder.
import { JetStreamApiError } from '@nats-io/jetstream';
import { kvCodec, Watched } from './watched.js';
import { WRONG_LAST_SEQUENCE } from './connection.js';
import type { Cluster } from './connection.js';

export interface Lease {
  /** The holder; '' once given up (the lease stays, so the next holder's epoch follows on). */
  node: string;
  epoch: number;
  /** Renewal count: each renewal rewrites the lease, which moves its revision. */
  beat: number;
}

/** A lease this node took: its epoch, and whether the holder before gave it up (who stops serving
 * the realm first) or there was none: then no earlier owner runs anything any more. */
export interface TakenLease {
  epoch: number;
  released: boolean;
}

/** Whether a lease's write was refused for a revision the lease has moved past. */
const movedPast = (error: unknown): boolean => error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE;

interface HeldLease {
  lease: Lease;
  revision: number;
  renewing?: Promise<void>;
}

export class Leases {
  readonly table: Watched<Lease>;
  /** The leases this node holds: realm → the lease as last written, its revision, and the
   * renewal under way (a release waits for it, and writes after it). */
  private readonly held = new Map<number, HeldLease>();

  constructor(
    cluster: Cluster,
    private readonly nodeId: string,
    readonly leaseMs: number,
    /** Told when a held lease could not be renewed (another node took it). */
    private readonly onLost: (realmId: number) => void,
    /** Told of every change of a lease, with the lease as it now stands. */
    onChange: (realmId: number, lease: Lease | undefined) => void,
  ) {
    this.table = new Watched<Lease>(cluster.leases, (key, lease) => {
      this.overtaken(Number(key));
      onChange(Number(key), lease);
    });
  }

  start(): Promise<void> {
    return this.table.start();
  }

  /** A held lease the table shows taken by another node since (this node lapsed unawares, paused
   * or cut off): given up at once (onLost), rather than at the next renewal. */
  private overtaken(realmId: number): void {
    const held = this.held.get(realmId);
    const now = this.table.get(String(realmId))?.value;
    if (held && now && now.node !== this.nodeId && now.epoch > held.lease.epoch && this.held.delete(realmId)) this.onLost(realmId);
  }

  /** The epoch of the realm's lease as last seen (live or not). */
  epochOf(realmId: number): number | undefined {
    return this.table.get(String(realmId))?.value.epoch;
  }

  /** The node holding a live lease on the realm. */
  ownerOf(realmId: number): string | undefined {
    const key = String(realmId);
    const node = this.table.fresh(key, this.leaseMs) ? this.table.get(key)?.value.node : undefined;
    return node === '' ? undefined : node;
  }

  holds(realmId: number): boolean {
    return this.held.has(realmId);
  }

  get heldRealms(): number[] {
    return [...this.held.keys()];
  }

  /** Takes the realm's lease if it is free or lapsed; resolves with the new epoch (and whether
   * the holder before gave it up), or undefined when another node holds it (or won the race). */
  async take(realmId: number): Promise<TakenLease | undefined> {
    const key = String(realmId);
    if (this.ownerOf(realmId) !== undefined) return undefined;
    const current = this.table.get(key);
    const lease: Lease = { node: this.nodeId, epoch: (current?.value.epoch ?? 0) + 1, beat: 0 };
    try {
      const revision = current ? await this.table.kv.update(key, kvCodec.pack(lease), current.revision) : await this.table.kv.create(key, kvCodec.pack(lease));
      this.held.set(realmId, { lease, revision });
      return { epoch: lease.epoch, released: current === undefined || current.value.node === '' };
    } catch {
      return undefined;
    }
  }

  /** Rewrites every held lease; one another node took over is given up (onLost). A renewal that
   * fails otherwise (NATS recovering) is tried at the next one: if the lease lapses meanwhile,
   * another node takes it and this node's next append is fenced. */
  async renew(): Promise<void> {
    // One still under way from the tick before (NATS slow) is not written again with its revision.
    await Promise.all([...this.held].map(([realmId, held]) => (held.renewing ??= this.renewal(realmId, held))));
  }

  private async renewal(realmId: number, held: HeldLease): Promise<void> {
    const write = async () => {
      const next = { ...held.lease, beat: held.lease.beat + 1 };
      held.revision = await this.table.kv.update(String(realmId), kvCodec.pack(next), held.revision);
      held.lease = next;
    };
    try {
      await write().catch(async (error: unknown) => {
        // Its own write found: renewed from it at once (it may be a whole timeout old).
        if (movedPast(error) && (await this.stillOwn(realmId, held))) return write();
        throw error;
      });
    } catch (error) {
      if (movedPast(error) && this.held.get(realmId) === held && this.held.delete(realmId)) this.onLost(realmId);
    } finally {
      held.renewing = undefined;
    }
  }

  /** Whether the lease, whose revision moved past the one held, is still this node's of the same
   * epoch: a write of its own whose answer was lost (a renewal that timed out here but was
   * stored). Then its revision is the one held from now on. */
  private async stillOwn(realmId: number, held: HeldLease): Promise<boolean> {
    const entry = await this.table.kv.get(String(realmId)).catch(() => null);
    if (entry?.operation !== 'PUT') return false;
    const stored = kvCodec.unpack(entry.value) as Lease;
    if (stored.node !== this.nodeId || stored.epoch !== held.lease.epoch) return false;
    held.lease = stored;
    held.revision = entry.revision;
    return true;
  }

  /** Gives a held lease up at once (a drain), so another node may take the realm without waiting. */
  async release(realmId: number): Promise<void> {
    const held = this.held.get(realmId);
    if (!held) return;
    this.held.delete(realmId);
    // A renewal under way would move the revision the release is written against.
    await held.renewing;
    const release = () => this.table.kv.update(String(realmId), kvCodec.pack({ ...held.lease, node: '' }), held.revision);
    // A revision moved by a write of this node's whose answer was lost: released at the one stored.
    await release().catch(async () => ((await this.stillOwn(realmId, held)) ? release() : undefined)).catch(() => undefined);
  }
}
