// What the I/O thread and the realm thread tell each other over the realm thread's port (PARLEY_THREADS
// above 1): plain data, in order, in batches (batchedPort.ts). A request carries a sequence number
// its reply names.
import type { Holding } from '../events/holders.js';
import type { QueueSnapshot } from '../events/queue.js';
import type { Emitted } from '../events/types.js';
import type { RealmOverview } from '../ops/metrics.js';
import type { CommandRequest, Reply } from '../realm/replies.js';

/** The realm thread's name where the system shows threads (`top -H`, /proc/<pid>/task/<tid>/comm). */
export const REALM_THREAD_NAME = 'parley-realms';

/** The realms a Host header can name: by subdomain, and the one served when it names none; with
 * each its memory generation (one Int32 shared by both threads), which moves whenever a write
 * changes the realm's memory. */
export interface Directory {
  realms: [id: number, subdomain: string, generation: Int32Array][];
  defaultRealm: number | undefined;
}

/** What the realm side reports for the server's metrics, a second old at most. */
export interface RealmStats {
  mailboxDepth: number;
  realmsLoaded: number;
  storeBytes: number;
  keptJsonBytes: number;
  realms: RealmOverview[];
}

/** A measurement the realm side made, for the server's metrics. */
export type Observation = ['command', name: string, outcome: 'ok' | 'error', seconds: number] | ['commit', seconds: number] | ['rendered', on: 'worker' | 'realm'];

/** Requests to the realm thread: each is answered by a reply with its `seq`. */
export type RealmRequest =
  /** A command for a realm. */
  | { kind: 'command'; seq: number; realmId: number; request: CommandRequest }
  /** Start serving (the I/O thread's queues are restored): seed a new server, start the realms
   * with work waiting; answered with the directory. */
  | { kind: 'start'; seq: number }
  /** Keep the event queues across the restart (a graceful stop). */
  | { kind: 'saveQueues'; seq: number; snapshots: QueueSnapshot[] }
  /** The queues kept by the last stop (forgotten at once). */
  | { kind: 'takeQueues'; seq: number }
  /** Stop the realms' timers and make every accepted write durable. */
  | { kind: 'stop'; seq: number }
  /** Close the store: the thread's work is done. */
  | { kind: 'close'; seq: number };

export type ToRealmThread =
  | RealmRequest
  /** How users' queues changed on the I/O thread (before a registration asks for its state too). */
  | { kind: 'holders'; realmId: number; users: [userId: number, holding: Holding][] };

export type FromRealmThread =
  | { kind: 'reply'; seq: number; reply: Reply }
  /** A realm's emissions, the first at realm position `from`, sent before the answer of the write
   * that made them. */
  | { kind: 'events'; realmId: number; from: number; emissions: readonly Emitted[] }
  | { kind: 'metrics'; observations: Observation[] }
  | { kind: 'stats'; stats: RealmStats };
