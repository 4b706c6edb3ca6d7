// A realm's log: where the change set of every committed write goes besides the local LMDB, in
// commit order, before the write is answered. In a cluster it is the replicated log other nodes
// rebuild the realm from; a standalone server has none.
import type { Change } from '../store/changes.js';

/** The log would not take a write: the realm is no longer this node's to write. */
export class LogRefusal extends Error {}

export interface RealmLog {
  /** Appends one committed write's changes; resolves once the log holds them durably. Rejects when
   * the log refuses (another node took the realm over): the write must not be answered as done. */
  append(realmId: number, changes: readonly Change[]): Promise<void>;
}
