// The serving side of the realm thread (PARLEY_THREADS above 1): starts it, and reaches it from each
// thread that serves clients (a front, over a port of its own): finds the realm a Host header
// names from its directory, asks realms their commands (threadRealm.ts), takes their emissions into
// the front's event queues at the realm's positions, tells it who holds queues there, and keeps
// them in its store across a graceful restart.
import { deserialize } from 'node:v8';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Config } from '../config.js';
import { allHoldings, holdingOf, type Holding } from '../events/holders.js';
import type { QueueSnapshot } from '../events/queue.js';
import { crossed } from '../events/jsonText.js';
import { EventQueues, type QueueShelf } from '../events/queues.js';
import type { QueueCounts } from '../events/queueCounts.js';
import type { RealmSources } from '../ops/metrics.js';
import type { CommandName, InputOf, OutputOf } from '../realm/commands/index.js';
import type { FieldsCommand, RealmDirectory, RealmHandle } from '../realm/handle.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { hostname, realmIdForHost } from '../realm/registry.js';
import { fieldsRequest, jsonFieldsOf, outputOf, requestOf, type Reply } from '../realm/replies.js';
import { BatchedPort } from './batchedPort.js';
import { record } from './metricsRelay.js';
import { supervise } from './workers.js';
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
  private stats: RealmStats = { mailboxDepth: 0, realmsLoaded: 0, storeBytes: 0, keptJsonBytes: 0, realms: [], unhandledRejections: 0 };

  constructor(
    private readonly config: Config,
    private readonly port: MessagePort,
    /** Its place among the fronts (its queues' IDs name it). */
    index: number,
    /** How many fronts there are. */
    count: number,
    /** How many queues each user holds on every front. */
    counts: QueueCounts,
  ) {
    this.externalHostname = hostname(config.externalHost);
    this.queues = new EventQueues(this, config.clock, config.metrics, index, counts);
    this.outbox = new BatchedPort(port, REQUESTS_PER_BATCH);
    port.on('message', (batch: FromRealmThread[]) => this.take(batch));
    // Ports keep no order between them: a client may write through another front and read its
    // queue here before this port's batch of that write's events is taken. Everything the realm
    // thread posted here before is waiting on this port by then, so a read takes it first.
    if (count > 1) this.queues.catchUp = () => this.catchUp();
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

  /** Promise rejections nobody handled on the realm thread, as it last reported. */
  get realmThreadRejections(): number {
    return this.stats.unhandledRejections;
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

  private take(batch: FromRealmThread[]): void {
    for (const message of batch) this.receive(message);
  }

  /** Takes what waits on the port now, before the event loop would. */
  private catchUp(): void {
    for (let waiting = receiveMessageOnPort(this.port); waiting; waiting = receiveMessageOnPort(this.port)) this.take(waiting.message as FromRealmThread[]);
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

/** The realm thread: the main thread's front, and the ports of the others (for the I/O threads). */
export class RealmThread {
  /** The main thread's front: it stops and closes the realm thread and hears its metrics. */
  readonly main: RealmFront;
  /** The ports of the fronts besides the main one, by their index less one. */
  readonly otherFronts: MessagePort[];
  private readonly worker: Worker;
  private readonly closing: () => void;

  /** Starts the realm thread for `frontCount` fronts. Its realms start once every front has
   * started (`RealmFront.start`): the main one here, the others where their ports are taken. */
  constructor(config: Config, frontCount: number, counts: QueueCounts) {
    const channels = Array.from({ length: frontCount }, () => new MessageChannel());
    const data: RealmThreadData = { fronts: channels.map((channel) => channel.port1) };
    this.worker = new Worker(new URL('./realmThread.js', import.meta.url), { name: 'realms', workerData: data, transferList: data.fronts });
    this.main = new RealmFront(config, channels[0]!.port2, 0, frontCount, counts);
    this.otherFronts = channels.slice(1).map((channel) => channel.port2);
    this.closing = supervise(this.worker, 'the realm thread', config);
  }

  /** Closes the store and ends the realm thread. */
  async close(): Promise<void> {
    await this.main.closeStore();
    this.closing();
    await this.worker.terminate();
  }
}
