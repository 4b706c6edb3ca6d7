// What a realm actor asks of a cluster besides its log and IDs: where presence is kept beyond its
// memory, and who holds event queues on other nodes. Standalone, neither exists: presence is
// saved to the local store and every queue is in this process.
import type { PresenceRecord, PresenceSnapshot } from '../users/presence.js';

/** Where a cluster keeps a realm's presence besides the owner's memory, so that a node taking the
 * realm over starts from it rather than from an empty table. */
export interface PresenceKeeper {
  /** The realm's records as the cluster held them when this node took the realm. */
  saved: PresenceSnapshot | undefined;
  /** Keeps changed records (null: forgotten); resolves once they are held. */
  keep(realmId: number, records: readonly [userId: number, record: PresenceRecord | null][]): Promise<void>;
}

/** Who holds event queues of a realm, wherever they were registered: notifications count those
 * users as connected, and a public channel's messages reach the all_public_streams ones. */
export interface QueueHolders {
  /** Whether the user holds an event queue (a client is connected). */
  hasQueue(realmId: number, userId: number): boolean;
  /** The users holding a queue registered with all_public_streams. */
  allPublicStreamsUsers(realmId: number): Iterable<number>;
}
