// A realm's log: where the change set of every committed write goes besides the local LMDB, in
// commit order, before the write is answered. In a cluster it is the replicated log other nodes
// rebuild the realm from; a standalone server has none.
import type { Change } from '../store/changes.js';
import type { IdSource } from '../store/store.js';

/** The log would not take a write: the realm is no longer this node's to write. */
export class LogRefusal extends Error {}

export interface RealmLog {
  /** Appends one committed write's changes; resolves once the log holds them durably. Rejects when
   * the log refuses (another node took the realm over): the write must not be answered as done.
   * Called again before the last call resolved, the log keeps the calls' order (resolving them in
   * that order) and, once it refused one, refuses every later one. */
  append(realmId: number, changes: readonly Change[]): Promise<void>;
  /** The local copy missed a write the log took (its batch failed to commit after the append): the
   * realm can no longer be served from it. */
  abandon(realmId: number): void;
}

/** A command wanted more IDs of a kind than were at hand; asked again, it finds more. */
export class IdsExhausted extends Error {}

/** Where a cluster's realms take IDs unique across the cluster (blocks topped up before writes). */
export interface IdSupply {
  /** Whether the realm has IDs enough at hand for a write. */
  ready(realmId: number): boolean;
  topUp(realmId: number): Promise<void>;
  /** The realm's IDs, for the store while one of its writes runs. */
  sourceFor(realmId: number): IdSource;
}
