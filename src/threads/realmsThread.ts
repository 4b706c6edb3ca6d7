// The serving side of the realm thread (PARLEY_THREADS above 1): starts it, and reaches it from each
// thread that serves clients (a front, over a port of its own): finds the realm a Host header
// names from its directory, asks realms their commands (threadRealm.ts), takes their emissions into
// the front's event queues at the realm's positions, tells it who holds queues there, and keeps
// them in its store across a graceful restart.
import { deserialize } from 'node:v8';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import { allHoldings, holdingOf, type Holding } from '../events/holders.js';
import type { QueueSnapshot } from '../events/queue.js';
import { crossed } from '../events/jsonText.js';
import { EventQueues, type QueueShelf } from '../events/queues.js';
import type { RealmSources } from '../ops/metrics.js';
import type { CommandName, InputOf, OutputOf } from '../realm/commands/index.js';
import type { FieldsCommand, RealmDirectory, RealmHandle } from '../realm/handle.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { hostname, realmIdForHost } from '../realm/registry.js';
import { fieldsRequest, jsonFieldsOf, outputOf, requestOf, type Reply } from '../realm/replies.js';
import { BatchedPort, type Poster } from './batchedPort.js';
import { record } from './metricsRelay.js';
import { ThreadRealm, type RealmCommands } from './threadRealm.js';
import type { Directory, FromRealmThread, Published, RealmRequest, RealmStats, RealmThreadData, ToRealmThread } from './protocol.js';

/** What each request to the realm thread answers. */
interface Answers {
  start: Directory;
  saveQueues: null;
  takeQueues: QueueSnapshot[];
  stop: null;
  sync: null;
  close: null;
}

type Unsequenced<R> = R extends unknown ? Omit<R, 'seq'> : never;

/** The most requests a batch to the realm thread holds before it goes (batchedPort.ts; measured: 4
 * to 32 did about as well, ARCHITECTURE.md). */
const REQUESTS_PER_BATCH = 16;

/** What a front posts to and hears from: the realm thread's worker (the main thread's front), or
 * a port to it. */
interface RealmPort extends Poster {
  on(event: 'message', listener: (batch: FromRealmThread[]) => void): unknown;
}

/** A thread that serves clients (a *front*), as it reaches the realm thread: it asks the realms
 * their commands and keeps their emissions in its event queues, at the realms' positions. */
export class RealmFront implements RealmDirectory, QueueShelf, RealmCommands {
  /** The event queues of the clients this front serves. */
  readonly queues: EventQueues;
  private readonly outbox: BatchedPort<ToRealmThread>;
  private seq = 0;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private readonly bySubdomain = new Map<string, number>();
  private readonly handles = new Map<number, ThreadRealm>();
  private defaultRealm: number | undefined;
  private readonly externalHostname: string;
  private stats: RealmStats = { mailboxDepth: 0, realmsLoaded: 0, storeBytes: 0, keptJsonBytes: 0, realms: [] };

  constructor(
    private readonly config: Config,
    port: RealmPort,
    /** Its place among the fronts (its queues' IDs name it). */
    index: number,
  ) {
    this.externalHostname = hostname(config.externalHost);
    this.queues = new EventQueues(this, config.clock, config.metrics, index);
    this.outbox = new BatchedPort(port, REQUESTS_PER_BATCH);
    port.on('message', (batch) => batch.forEach((message) => this.receive(message)));
  }

  /** Restores the queues the last stop kept here, tells the realm thread who holds them, and waits
   * for the realms to start. */
  async start(): Promise<void> {
    await this.queues.restore();
    this.queues.announceRestart();
    this.queues.onHoldersChanged = (realmId, userId) => this.tell(realmId, [[userId, holdingOf(this.queues, realmId, userId)]]);
    for (const realmId of this.queues.realmIds()) this.tell(realmId, allHoldings(this.queues, realmId));
    const directory = await this.request({ kind: 'start' });
    for (const [id, subdomain, generation] of directory.realms) {
      this.bySubdomain.set(subdomain, id);
      this.handles.set(id, new ThreadRealm({ id, subdomain }, this, generation, this.config));
    }
    this.defaultRealm = directory.defaultRealm;
  }

  forHost(host: string): RealmHandle | undefined {
    const id = realmIdForHost(host, this.externalHostname, this.bySubdomain, () => this.defaultRealm);
    return id === undefined ? undefined : this.handles.get(id);
  }

  command<N extends CommandName>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return this.send({ kind: 'command', realmId, request: requestOf(name, userId, input) }).then((reply) => outputOf<N>(reply));
  }

  commandFields<N extends FieldsCommand>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields> {
    return this.send({ kind: 'command', realmId, request: fieldsRequest(name, userId, input) }).then(jsonFieldsOf);
  }

  async saveQueues(snapshots: readonly QueueSnapshot[]): Promise<void> {
    await this.request({ kind: 'saveQueues', snapshots: [...snapshots] });
  }

  takeSavedQueues(): Promise<QueueSnapshot[]> {
    return this.request({ kind: 'takeQueues' });
  }

  /** Stops the realms' timers; resolves once every accepted write is durable. */
  async stop(): Promise<void> {
    await this.request({ kind: 'stop' });
  }

  /** Resolves once this front has everything the realm thread sent it before. */
  async sync(): Promise<void> {
    await this.request({ kind: 'sync' });
  }

  /** Closes the store: the realm thread's work is done. */
  async closeStore(): Promise<void> {
    await this.request({ kind: 'close' });
  }

  /** The realm side's figures for the server's metrics. */
  metricSources(): RealmSources {
    return {
      mailboxDepth: () => this.stats.mailboxDepth,
      realmsLoaded: () => this.stats.realmsLoaded,
      storeBytes: () => this.stats.storeBytes,
      keptJsonBytes: () => this.stats.keptJsonBytes,
      realms: () => this.stats.realms,
      nodes: () => null,
    };
  }

  private tell(realmId: number, users: [userId: number, holding: Holding][]): void {
    if (users.length > 0) this.post({ kind: 'holders', realmId, users });
  }

  private async request<K extends keyof Answers>(message: Unsequenced<RealmRequest> & { kind: K }): Promise<Answers[K]> {
    const reply = await this.send(message);
    if (!('ok' in reply)) throw new Error(`the realm thread failed to ${message.kind}`);
    return reply.ok as Answers[K];
  }

  private send(message: Unsequenced<RealmRequest>): Promise<Reply> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(seq, resolve);
      this.post({ ...message, seq } as RealmRequest);
    });
  }

  private post(message: ToRealmThread): void {
    this.outbox.post(message);
  }

  private receive(message: FromRealmThread): void {
    switch (message.kind) {
      case 'reply':
        this.waiting.get(message.seq)?.(message.reply);
        this.waiting.delete(message.seq);
        return;
      case 'events':
        for (const { realmId, emissions, from } of 'encoded' in message ? (deserialize(message.encoded) as Published[]) : message.published) {
          for (const emission of emissions) crossed(emission.event);
          this.queues.publish(realmId, emissions, from);
        }
        return;
      case 'metrics':
        record(this.config.metrics, message.observations);
        return;
      case 'stats':
        this.stats = message.stats;
        return;
    }
  }
}

/** The realm thread, and the fronts that reach it from this thread. */
export class RealmThread {
  /** The first is the main thread's: it stops and closes the realm thread and hears its metrics. */
  readonly fronts: RealmFront[];
  private readonly worker: Worker;
  /** Set once the server ends the realm thread itself. */
  private closing = false;

  private constructor(
    private readonly config: Config,
    frontCount: number,
  ) {
    const channels = Array.from({ length: frontCount - 1 }, () => new MessageChannel());
    const data: RealmThreadData = { fronts: channels.map((channel) => channel.port1) };
    this.worker = new Worker(new URL('./realmThread.js', import.meta.url), { name: 'realms', workerData: data, transferList: data.fronts });
    this.fronts = [new RealmFront(config, this.worker, 0), ...channels.map((channel, index) => new RealmFront(config, channel.port2, index + 1))];
    // Nothing can be served without the realms: should their thread fail or end before the server
    // closes it, the process ends for its supervisor to start it again (every write answered was
    // durable).
    this.worker.on('error', (error) => this.lost(error));
    this.worker.on('exit', (code) => {
      if (!this.closing) this.lost(new Error(`the realm thread exited with code ${code}`));
    });
  }

  /** Starts the realm thread with `frontCount` fronts on this thread; resolves once each has
   * restored its queues and the realms have started. */
  static async start(config: Config, frontCount = 1): Promise<RealmThread> {
    const thread = new RealmThread(config, frontCount);
    await Promise.all(thread.fronts.map((front) => front.start()));
    return thread;
  }

  /** Stops the realms' timers; resolves once every accepted write is durable and each front has the
   * emissions of those writes (ports keep no order between them). */
  async stop(): Promise<void> {
    await this.fronts[0]!.stop();
    await Promise.all(this.fronts.slice(1).map((front) => front.sync()));
  }

  /** Closes the store and ends the realm thread. */
  async close(): Promise<void> {
    await this.fronts[0]!.closeStore();
    this.closing = true;
    await this.worker.terminate();
  }

  private lost(error: Error): void {
    this.config.log.fatal({ err: error }, 'the realm thread failed');
    process.exit(1);
  }
}
