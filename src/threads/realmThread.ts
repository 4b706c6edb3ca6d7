// The realm thread (PARLEY_THREADS above 1): the store and every realm's actor, apart from the I/O
// thread, which serves clients and holds their event queues. It reads the same environment as the
// I/O thread. Commands come over the port as plain data and their answers go back
// (realm/replies.ts); a realm's emissions go to the I/O thread as they are published, before the
// answer of the write that made them (plain data, as emitted); each realm's memory generation, shared with
// the I/O thread, tells it when what it derived (credentials, the rendering context) is out of
// date; the I/O thread tells this one who holds queues (events/holders.ts), and keeps its queues in
// this thread's store across a graceful restart.
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort, type MessagePort } from 'node:worker_threads';
import { loadConfig, type Config } from '../config.js';
import { HolderSet, type Holding } from '../events/holders.js';
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
import { guardRejections, openFiles, openStore } from '../setup.js';
import { BatchedPort } from './batchedPort.js';
import { RelayedMetrics } from './metricsRelay.js';
import { REALM_THREAD_NAME, type Directory, type FromRealmThread, type RealmRequest, type ToRealmThread } from './protocol.js';

/** How often the realm side's figures for the metrics are sent. */
const STATS_INTERVAL_MS = 1000;

/** Names this thread (Linux: a thread may rename itself through /proc/thread-self); elsewhere it
 * keeps the name it has, which nothing depends on. */
function nameThisThread(): void {
  if (existsSync('/proc/thread-self/comm')) writeFileSync('/proc/thread-self/comm', REALM_THREAD_NAME);
}

/** What stands for the server's queues here: each publish goes to the I/O thread, at the realm's
 * position; who holds queues is what the I/O thread told. */
class QueuesElsewhere implements EventSink, QueueHolders {
  private readonly positions = new Map<number, number>();
  private readonly holders = new Map<number, HolderSet>();

  constructor(private readonly post: (message: FromRealmThread) => void) {}

  publish(realmId: number, emitted: readonly Emitted[]): void {
    if (emitted.length === 0) return;
    const from = this.position(realmId) + 1;
    this.positions.set(realmId, from + emitted.length - 1);
    this.post({ kind: 'events', realmId, from, emissions: emitted });
  }

  position(realmId: number): number {
    return this.positions.get(realmId) ?? 0;
  }

  /** One server: one owner of every realm. */
  epoch(): number {
    return 0;
  }

  /** How users' queues changed on the I/O thread. */
  told(realmId: number, users: readonly [userId: number, holding: Holding][]): void {
    let set = this.holders.get(realmId);
    if (!set) this.holders.set(realmId, (set = new HolderSet()));
    set.tell(users);
  }

  hasQueue(realmId: number, userId: number): boolean {
    return this.holders.get(realmId)?.users.has(userId) ?? false;
  }

  allPublicStreamsUsers(realmId: number): Iterable<number> {
    return this.holders.get(realmId)?.allPublic ?? [];
  }
}

/** Each realm's memory generation, shared with the I/O thread: it moves before the answer of a
 * write that changed the memory goes out, and the credentials the I/O thread keeps are good while
 * it has not moved. */
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

/** The realms and their store, serving the I/O thread's requests. */
class RealmSide {
  private readonly generations = new Generations();
  private readonly realms: Realms;
  private readonly stats: NodeJS.Timeout;

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    files: FileStorage,
    /** What stands for the I/O thread's queues here (told who holds them). */
    readonly queues: QueuesElsewhere,
    post: (message: FromRealmThread) => void,
  ) {
    this.realms = new Realms(store, config, queues, { files, memoryChanged: (realmId) => this.generations.move(realmId) });
    this.stats = setInterval(() => post({ kind: 'stats', stats: { mailboxDepth: this.realms.waiting(), realmsLoaded: this.realms.loaded, storeBytes: store.fileBytes(), keptJsonBytes: keptJson.bytes, realms: this.realms.overview() } }), STATS_INTERVAL_MS);
    this.stats.unref();
  }

  async run(request: RealmRequest): Promise<Reply> {
    switch (request.kind) {
      case 'command': {
        const realm = this.realms.byId(request.realmId);
        return realm ? replyTo(realm, request.request) : { error: null };
      }
      case 'start':
        return { ok: await this.start() };
      case 'saveQueues':
        await this.store.saveQueues(request.snapshots);
        return { ok: null };
      case 'takeQueues':
        return { ok: await this.store.takeSavedQueues<QueueSnapshot>() };
      case 'stop':
        await this.realms.stop();
        return { ok: null };
      case 'close':
        clearInterval(this.stats);
        await this.store.close();
        return { ok: null };
    }
  }

  /** Seeds a new development server, starts the realms with work waiting, and tells the directory. */
  private async start(): Promise<Directory> {
    if (this.config.mode === 'development' && this.realms.isEmpty) await seedDemoRealm(this.realms, this.config.passwordHashCost);
    this.realms.activateScheduled();
    const { realms, defaultRealm } = this.realms.directory();
    return { realms: realms.map(([id, subdomain]) => [id, subdomain, this.generations.of(id)]), defaultRealm };
  }
}

async function serve(port: MessagePort): Promise<void> {
  nameThisThread();
  const outbox = new BatchedPort<FromRealmThread>(port);
  const post = (message: FromRealmThread) => outbox.post(message);
  const config: Config = { ...loadConfig(), metrics: new RelayedMetrics(post) };
  guardRejections(config.log);
  const side = new RealmSide(config, openStore(config), await openFiles(config), new QueuesElsewhere(post), post);
  port.on('message', (batch: ToRealmThread[]) => {
    for (const message of batch) {
      if (message.kind === 'holders') {
        side.queues.told(message.realmId, message.users);
        continue;
      }
      // A command's reply is its answer or refusal; anything else failing here is a bug, logged,
      // and the I/O thread's request fails.
      void side.run(message).then(
        (reply) => post({ kind: 'reply', seq: message.seq, reply }),
        (error: unknown) => {
          config.log.error({ err: error, request: message.kind }, 'realm thread: request failed');
          post({ kind: 'reply', seq: message.seq, reply: { error: null } });
        },
      );
    }
  });
}

if (!parentPort) throw new Error('the realm thread runs as a worker of the server');
await serve(parentPort);
