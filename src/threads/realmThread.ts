// A realm thread (PARLEY_THREADS above 1; PARLEY_REALM_THREADS of them): a shard of the data
// directory (one store; shard 0 is the data directory's own parley.mdb) and the actors of the realms
// that live in it, apart from the threads that serve clients and hold their event queues (its
// *fronts*: the main thread and the I/O threads, each over a port of its own). Commands come over a front's port as
// plain data and their answers go back to it (realm/replies.ts); a realm's emissions go to every
// front once a turn, before the answers of the writes that made them (fronts.ts); each realm's
// memory generation, shared with the fronts, tells them when what they derived (credentials, the
// rendering context) is out of date; each front tells the thread of a realm who holds its queues
// there (events/holders.ts), and keeps them in shard 0's store across a graceful restart. The
// shards take IDs from counters they share (store/idCounters.ts).
import { isMainThread, workerData } from 'node:worker_threads';
import { loadConfig, type Config } from '../config.js';
import { allPublicOf } from '../events/holders.js';
import { crossing } from '../events/jsonText.js';
import type { EventSink } from '../events/queues.js';
import type { QueueSnapshot } from '../events/queue.js';
import type { Emitted } from '../events/types.js';
import type { QueueHolders } from '../realm/links.js';
import { keptJson } from '../organization/keptJson.js';
import { Realms } from '../realm/registry.js';
import { replyTo, type Reply } from '../realm/replies.js';
import type { FileStorage } from '../files/storage.js';
import { seedDemoRealm } from '../seed/demo.js';
import type { Store } from '../store/store.js';
import { SharedIdCounters } from '../store/idCounters.js';
import { guardRejections, openFiles, openShard, unhandled } from '../setup.js';
import { Front, FrontsOutbox } from './fronts.js';
import { RelayedMetrics } from './metricsRelay.js';
import { nameThisThread } from './workers.js';
import { REALM_THREAD_NAME, type Directory, type RealmThreadData, type RealmRequest, type ToRealmThread } from './protocol.js';

/** How often the realm side's figures for the metrics are sent. */
const STATS_INTERVAL_MS = 1000;

/** An emission as it crosses to the fronts (its event's JsonText fields as marked text). */
function crossingEmission(emission: Emitted): Emitted {
  const event = crossing(emission.event);
  return event === emission.event ? emission : { ...emission, event };
}

/** What stands for the server's queues here: each publish goes to every front, at the realm's
 * position; a user holds queues if any front told so. */
class QueuesElsewhere implements EventSink, QueueHolders {
  private readonly positions = new Map<number, number>();

  constructor(private readonly outbox: FrontsOutbox) {}

  publish(realmId: number, emitted: readonly Emitted[]): void {
    if (emitted.length === 0) return;
    const from = this.position(realmId) + 1;
    this.positions.set(realmId, from + emitted.length - 1);
    this.outbox.publish({ realmId, from, emissions: emitted.map(crossingEmission) });
  }

  position(realmId: number): number {
    return this.positions.get(realmId) ?? 0;
  }

  /** One server: one owner of every realm. */
  epoch(): number {
    return 0;
  }

  /** Asked for each recipient of a message: no allocation. */
  hasQueue(realmId: number, userId: number): boolean {
    for (const front of this.outbox.fronts) if (front.holders.get(realmId)?.users.has(userId)) return true;
    return false;
  }

  allPublicStreamsUsers(realmId: number): Iterable<number> {
    const fronts = this.outbox.fronts;
    if (fronts.length === 1) return fronts[0]!.holders.get(realmId)?.allPublic ?? [];
    return allPublicOf(fronts.flatMap((front) => front.holders.get(realmId) ?? []));
  }
}

/** Each realm's memory generation, shared with the fronts: it moves before the answer of a write
 * that changed the memory goes out, and the credentials a front keeps are good while it has not
 * moved. */
class Generations {
  private readonly cells = new Map<number, Int32Array>();

  of(realmId: number): Int32Array {
    let cell = this.cells.get(realmId);
    if (!cell) this.cells.set(realmId, (cell = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))));
    return cell;
  }

  move(realmId: number): void {
    Atomics.add(this.of(realmId), 0, 1);
  }
}

/** A saved queue, with the front that kept it. */
type ShelvedQueue = QueueSnapshot & { front?: number };

/** The realms and their store, serving the fronts' requests. */
class RealmSide {
  private readonly generations = new Generations();
  private readonly realms: Realms;
  private readonly stats: NodeJS.Timeout;
  /** The realms start once every front asked (each has restored its queues and told who holds
   * them), and each is answered with the directory. */
  private startsAsked = 0;
  private readonly started: Promise<Directory>;
  private begin: (() => void) | undefined;
  /** The queues the last stop kept, by the front that kept them, until each takes its own. */
  private shelved: Promise<Map<number, QueueSnapshot[]>> | undefined;

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    files: FileStorage,
    private readonly outbox: FrontsOutbox,
    /** Which shard this thread holds, of how many, and the IDs they share. */
    private readonly shard: { index: number; count: number; ids: SharedIdCounters },
  ) {
    this.realms = new Realms(store, config, new QueuesElsewhere(outbox), { files, memoryChanged: (realmId) => this.generations.move(realmId) });
    const main = outbox.fronts[0]!;
    this.stats = setInterval(() => outbox.post(main, { kind: 'stats', stats: { mailboxDepth: this.realms.waiting(), realmsLoaded: this.realms.loaded, storeBytes: store.fileBytes(), keptJsonBytes: keptJson.bytes, realms: this.realms.overview(), unhandledRejections: unhandled.rejections } }), STATS_INTERVAL_MS);
    this.stats.unref();
    this.started = new Promise<void>((resolve) => (this.begin = resolve)).then(() => this.start());
  }

  async run(front: Front, request: RealmRequest): Promise<Reply> {
    switch (request.kind) {
      case 'command': {
        const realm = this.realms.byId(request.realmId);
        return realm ? replyTo(realm, request.request) : { error: null };
      }
      case 'directory':
        return { ok: this.directory() };
      case 'start':
        if (++this.startsAsked === this.outbox.fronts.length) this.begin?.();
        return { ok: await this.started };
      case 'saveQueues':
        await this.store.saveQueues(request.snapshots.map((snapshot): ShelvedQueue => ({ ...snapshot, front: front.index })));
        return { ok: null };
      case 'takeQueues':
        return { ok: await this.takeQueues(front) };
      case 'stop':
        await this.realms.stop();
        return { ok: null };
      case 'sync':
        return { ok: null };
      case 'close':
        clearInterval(this.stats);
        await this.store.close();
        return { ok: null };
    }
  }

  /** A front's queues from the last stop; those of a front there is no longer, the main thread's. */
  private async takeQueues(front: Front): Promise<QueueSnapshot[]> {
    this.shelved ??= this.store.takeSavedQueues<ShelvedQueue>().then((saved) => {
      const byFront = new Map<number, QueueSnapshot[]>();
      for (const { front: keeper = 0, ...snapshot } of saved) {
        const index = keeper < this.outbox.fronts.length ? keeper : 0;
        const kept = byFront.get(index);
        if (kept) kept.push(snapshot);
        else byFront.set(index, [snapshot]);
      }
      return byFront;
    });
    const byFront = await this.shelved;
    const mine = byFront.get(front.index) ?? [];
    byFront.delete(front.index);
    return mine;
  }

  /** Once every shard opened (no ID any of them recorded is handed out again), seeds a new
   * development server (on shard 0), starts the realms with work waiting, and tells the directory
   * of this shard. */
  private async start(): Promise<Directory> {
    const realmsInAll = await this.shard.ids.allOpened(this.shard.count);
    if (this.config.mode === 'development' && this.shard.index === 0 && realmsInAll === 0) await seedDemoRealm(this.realms, this.config.passwordHashCost);
    this.realms.activateScheduled();
    return this.directory();
  }

  /** The realms of this shard, with their memory generations. */
  private directory(): Directory {
    const { realms, defaultRealm } = this.realms.directory();
    return { realms: realms.map(([id, subdomain]) => [id, subdomain, this.generations.of(id)]), defaultRealm };
  }
}

async function serve({ fronts, shard, shards, ids }: RealmThreadData): Promise<void> {
  nameThisThread(shard === 0 ? REALM_THREAD_NAME : `${REALM_THREAD_NAME}-${shard}`);
  const loaded = loadConfig();
  const outbox = new FrontsOutbox(fronts.map((port, index) => new Front(index, port)), loaded.log);
  const [first] = outbox.fronts as [Front];
  // The kept JSON's budget is the process's, split evenly among the realm threads.
  const config: Config = { ...loaded, keptJsonMb: loaded.keptJsonMb / shards, metrics: new RelayedMetrics((message) => outbox.post(first, message)) };
  guardRejections(config.log);
  const counters = new SharedIdCounters(ids);
  const store = openShard(config, shard, counters);
  const side = new RealmSide(config, store, await openFiles(config), outbox, { index: shard, count: shards, ids: counters });
  for (const front of outbox.fronts) {
    front.port.on('message', (batch: ToRealmThread[]) => {
      for (const message of batch) {
        if (message.kind === 'holders') {
          front.told(message.realmId, message.users);
          continue;
        }
        // A command's reply is its answer or refusal; anything else failing here is a bug, logged,
        // and the front's request fails.
        void side.run(front, message).then(
          (reply) => outbox.post(front, { kind: 'reply', seq: message.seq, reply }),
          (error: unknown) => {
            config.log.error({ err: error, request: message.kind }, 'realm thread: request failed');
            outbox.post(front, { kind: 'reply', seq: message.seq, reply: { error: null } });
          },
        );
      }
    });
  }
}

if (isMainThread) throw new Error('the realm thread runs as a worker of the server');
await serve(workerData as RealmThreadData);
