// What a front (a thread that serves clients: the main thread, and more to come) and the realm
// thread tell each other over the front's port (PARLEY_THREADS above 1): plain data, in order, in
// batches (batchedPort.ts). A request carries a sequence number its reply names. The main thread's
// front also stops and closes the realm thread, and hears its metrics.
import type { MessagePort } from 'node:worker_threads';
import type { Holding } from '../events/holders.js';
import type { QueueSnapshot } from '../events/queue.js';
import type { Emitted } from '../events/types.js';
import type { RealmOverview } from '../ops/metrics.js';
import type { CommandRequest, Reply } from '../realm/replies.js';

/** The realm thread's name where the system shows threads (`top -H`, /proc/<pid>/task/<tid>/comm);
 * with several, shard 0's (the others add `-<shard>`). */
export const REALM_THREAD_NAME = 'parley-realms';

/** An I/O thread's name there: its place among the fronts follows. */
export const IO_THREAD_NAME = 'parley-io-';

/** What a realm thread starts with (its workerData): the port of each front, the main thread's
 * first; the shard it holds, of how many; the ID counters the shards share (idCounters.ts). */
export interface RealmThreadData {
  fronts: MessagePort[];
  shard: number;
  shards: number;
  ids: SharedArrayBuffer;
}

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
  /** Promise rejections nobody handled on the realm thread. */
  unhandledRejections: number;
}

/** A realm's emissions, the first at realm position `from`. */
export interface Published {
  realmId: number;
  from: number;
  emissions: readonly Emitted[];
}

/** A measurement a worker thread made (the realm side's, an I/O thread's), for the server's metrics. */
export type Observation =
  | ['command', name: string, outcome: 'ok' | 'error', seconds: number]
  | ['commit', seconds: number]
  | ['rendered', on: 'worker' | 'realm']
  | ['request', method: string, route: string, status: number, seconds: number]
  | ['fanout', deliveries: number, seconds: number]
  | ['socketClosed', code: number];

/** Requests to the realm thread: each is answered by a reply with its `seq`. */
export type RealmRequest =
  /** A command for a realm. */
  | { kind: 'command'; seq: number; realmId: number; request: CommandRequest }
  /** The realms of the shard as it opened (answered at once), so that the front tells each
   * realm's thread who holds queues there before the realms start. */
  | { kind: 'directory'; seq: number }
  /** Start serving (the front's queues are restored): once every front asked, seed a new server
   * and start the realms with work waiting; answered with the directory. */
  | { kind: 'start'; seq: number }
  /** Keep the front's event queues across the restart (a graceful stop). */
  | { kind: 'saveQueues'; seq: number; snapshots: QueueSnapshot[] }
  /** The front's queues kept by the last stop (forgotten at once). */
  | { kind: 'takeQueues'; seq: number }
  /** Stop the realms' timers and make every accepted write durable. */
  | { kind: 'stop'; seq: number }
  /** Answered at once: its answer comes after everything sent to the front before it. */
  | { kind: 'sync'; seq: number }
  /** Close the store: the thread's work is done. */
  | { kind: 'close'; seq: number };

export type ToRealmThread =
  | RealmRequest
  /** How users' queues changed on the front (before a registration asks for its state too). */
  | { kind: 'holders'; realmId: number; users: [userId: number, holding: Holding][] };

export type FromRealmThread =
  | { kind: 'reply'; seq: number; reply: Reply }
  /** The realms' emissions of a turn, before the answers of the writes that made them: as they
   * are, or encoded by V8's serializer (`Published[]`) when several fronts take them (fronts.ts). */
  | { kind: 'events'; published: Published[] }
  | { kind: 'events'; encoded: Uint8Array }
  | { kind: 'metrics'; observations: Observation[] }
  | { kind: 'stats'; stats: RealmStats };
