// The cluster's counters of IDs (`parley_ids`) in memory, for tests of IdBlocks without NATS: a
// revision per kind as the KV bucket keeps, and a switch that makes every read fail (the cluster
// out of reach).
import type { IdCounters } from '../../src/cluster/ids.js';

export class MemoryIdCounters implements IdCounters {
  private readonly values = new Map<string, { value: Uint8Array; revision: number }>();
  private revision = 0;
  unreachable = false;
  /** How long a read takes (a cluster some way off). */
  delayMs = 0;

  async get(kind: string): Promise<{ operation: string; value: Uint8Array; revision: number } | null> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.unreachable) throw new Error('the cluster is out of reach');
    const entry = this.values.get(kind);
    return entry ? { operation: 'PUT', ...entry } : null;
  }

  async update(kind: string, value: Uint8Array, revision: number): Promise<void> {
    if (this.values.get(kind)?.revision !== revision) throw new Error('wrong last revision');
    this.values.set(kind, { value, revision: ++this.revision });
  }

  async create(kind: string, value: Uint8Array): Promise<void> {
    if (this.values.has(kind)) throw new Error('the key exists');
    this.values.set(kind, { value, revision: ++this.revision });
  }
}
