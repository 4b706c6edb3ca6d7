// The serving side of the realm threads (PARLEY_THREADS above 1; one a shard, PARLEY_REALM_THREADS):
// starts them, and reaches them from each thread that serves clients (a front, over a port of its
// own to each): finds the realm a Host header names from the union of the shards' directories, asks
// realms their commands on their shard's thread (threadRealm.ts), takes their emissions into the
// front's event queues at the realm's positions, tells each realm's thread who holds queues there,
// and keeps them in shard 0's store across a graceful restart.
import { deserialize } from 'node:v8';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Config } from '../config.js';
import { allHoldings, holdingOf, type Holding } from '../events/holders.js';
import type { QueueSnapshot } from '../events/queue.js';
import { crossed } from '../events/jsonText.js';
import { EventQueues, type QueueShelf } from '../events/queues.js';
import type { QueueCounts } from '../events/queueCounts.js';
import type { Logger } from '../ops/log.js';
import type { RealmSources } from '../ops/metrics.js';
import type { CommandName, InputOf, OutputOf } from '../realm/commands/index.js';
import type { FieldsCommand, RealmDirectory, RealmHandle } from '../realm/handle.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { firstCreated, hostname, realmIdForHost } from '../realm/registry.js';
import { fieldsRequest, jsonFieldsOf, outputOf, requestOf, type Reply } from '../realm/replies.js';
import { BatchedPort } from './batchedPort.js';
import { record } from './metricsRelay.js';
import { supervise } from './workers.js';
import { newIdCountersShare } from '../store/idCounters.js';
import { ThreadRealm, type RealmCommands } from './threadRealm.js';
import type { Directory, FromRealmThread, Published, RealmRequest, RealmStats, RealmThreadData, ToRealmThread } from './protocol.js';

/** What each request to a realm thread answers. */
interface Answers {
  directory: Directory;
  start: Directory;
  saveQueues: null;
  takeQueues: QueueSnapshot[];
  stop: null;
  sync: null;
  close: null;
}

type Unsequenced<R> = R extends unknown ? Omit<R, 'seq'> : never;

/** The most requests a batch to a realm thread holds before it goes (batchedPort.ts; measured: 4
 * to 32 did about as well, ARCHITECTURE.md). */
const REQUESTS_PER_BATCH = 16;

const NO_STATS: RealmStats = { mailboxDepth: 0, realmsLoaded: 0, storeBytes: 0, keptJsonBytes: 0, realms: [], unhandledRejections: 0 };

/** What a realm thread sends a front besides replies and figures, its emissions decoded. */
type Received = { kind: 'events'; published: Published[] } | Extract<FromRealmThread, { kind: 'metrics' }>;

/** A front's way to one realm thread (one shard): its batches of requests, the replies they wait
 * for, and the figures it last reported. Everything else it sends goes to `receive`.
 *
 * A batch this thread cannot read (a value nested deeper than its stack takes: the main thread's is
 * a quarter of a worker's, so what the realm thread copied may still not be read here; a bug) held
 * replies and emissions no one can tell: every request waiting on the realm thread fails (an
 * internal error, as a command failing there), and `unread` is told, for the front to drop the
 * queues of the shard's realms (their clients register again) rather than let them miss events.
 * Emissions encoded for several fronts that cannot be decoded drop the shard's realms' queues too;
 * no request fails then, and the replies after them are read. */
class ShardLink {
  private readonly outbox: BatchedPort<ToRealmThread>;
  private seq = 0;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  stats = NO_STATS;

  constructor(
    readonly index: number,
    private readonly port: MessagePort,
    private readonly receive: (message: Received) => void,
    private readonly unread: (link: ShardLink) => void,
    private readonly log: Logger,
  ) {
    // A request that cannot be copied (a bug) fails alone, as a command that fails on the realm
    // thread does: logged, and its caller answered with an internal error.
    this.outbox = new BatchedPort(port, REQUESTS_PER_BATCH, (message, error) => {
      log.error({ err: error, kind: message.kind, shard: index }, 'a request could not be copied to its realm thread');
      if ('seq' in message) this.answered(message.seq, { error: null });
    });
    port.on('message', (batch: FromRealmThread[]) => this.take(batch));
    port.on('messageerror', (error) => this.lost(error));
  }

  async request<K extends keyof Answers>(message: Unsequenced<RealmRequest> & { kind: K }): Promise<Answers[K]> {
    const reply = await this.send(message);
    if (!('ok' in reply)) throw new Error(`realm thread ${this.index} failed to ${message.kind}`);
    return reply.ok as Answers[K];
  }

  send(message: Unsequenced<RealmRequest>): Promise<Reply> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(seq, resolve);
      this.post({ ...message, seq } as RealmRequest);
    });
  }

  post(message: ToRealmThread): void {
    this.outbox.post(message);
  }

  /** Takes what waits on the port now, before the event loop would. */
  catchUp(): void {
    for (;;) {
      let waiting: { message: unknown } | undefined;
      try {
        waiting = receiveMessageOnPort(this.port);
      } catch (error) {
        // That batch is gone from the port: the next is read.
        this.lost(error);
        continue;
      }
      if (!waiting) return;
      this.take(waiting.message as FromRealmThread[]);
    }
  }

  private answered(seq: number, reply: Reply): void {
    this.waiting.get(seq)?.(reply);
    this.waiting.delete(seq);
  }

  private take(batch: FromRealmThread[]): void {
    for (const message of batch) {
      if (message.kind === 'reply') this.answered(message.seq, message.reply);
      else if (message.kind === 'stats') this.stats = message.stats;
      else if (message.kind === 'metrics' || !('encoded' in message)) this.receive(message);
      else this.decoded(message.encoded);
    }
  }

  private decoded(encoded: Uint8Array): void {
    let published: Published[];
    try {
      published = deserialize(encoded) as Published[];
    } catch (error) {
      // Only emissions are lost: the replies after them are read.
      this.log.error({ err: error, shard: this.index }, "emissions from a realm thread could not be read: its realms' event queues are dropped");
      return this.unread(this);
    }
    this.receive({ kind: 'events', published });
  }

  /** A batch could not be read here. */
  private lost(error: unknown): void {
    this.log.error({ err: error, shard: this.index }, "a batch from a realm thread could not be read: the requests waiting on it fail, and its realms' event queues are dropped");
    for (const seq of [...this.waiting.keys()]) this.answered(seq, { error: null });
    this.unread(this);
  }
}

/** A thread that serves clients (a *front*), as it reaches the realm threads: it asks each realm
 * its commands on its shard's thread, and keeps their emissions in its event queues, at the
 * realms' positions. */
export class RealmFront implements RealmDirectory, QueueShelf, RealmCommands {
  /** The event queues of the clients this front serves. */
  readonly queues: EventQueues;
  /** Its link to each realm thread, by shard. */
  private readonly links: ShardLink[];
  /** The link to the shard each realm lives on. */
  private readonly shardOf = new Map<number, ShardLink>();
  private readonly bySubdomain = new Map<string, number>();
  private readonly handles = new Map<number, ThreadRealm>();
  private defaultRealm: number | undefined;
  private readonly externalHostname: string;

  constructor(
    private readonly config: Config,
    /** Its port to each realm thread, by shard. */
    ports: readonly MessagePort[],
    /** Its place among the fronts (its queues' IDs name it). */
    index: number,
    /** How many fronts there are. */
    count: number,
    /** How many queues each user holds on every front. */
    counts: QueueCounts,
    /** The server's generation, the same on every front (app.ts FrontShares). */
    generation: number,
  ) {
    this.externalHostname = hostname(config.externalHost);
    this.queues = new EventQueues(this, config.clock, config.metrics, index, counts, generation);
    this.links = ports.map((port, shard) => new ShardLink(shard, port, (message) => this.receive(message), (link) => this.dropQueuesOf(link), config.log));
    // Ports keep no order between them: a client may write through another front and read its
    // queue here before this port's batch of that write's events is taken. Everything a realm
    // thread posted here before is waiting on its port by then, so a read takes it first.
    if (count > 1) this.queues.catchUp = () => this.catchUp();
  }

  /** Restores the queues the last stop kept here, tells each realm's thread who holds them, and
   * waits for the realms to start. */
  async start(): Promise<void> {
    await this.queues.restore();
    this.queues.announceRestart();
    this.place(await Promise.all(this.links.map((link) => link.request({ kind: 'directory' }))));
    this.queues.onHoldersChanged = (realmId, userId) => this.tell(realmId, [[userId, holdingOf(this.queues, realmId, userId)]]);
    for (const realmId of this.queues.realmIds()) this.tell(realmId, allHoldings(this.queues, realmId));
    this.place(await Promise.all(this.links.map((link) => link.request({ kind: 'start' }))));
  }

  /** Takes each shard's directory: the union is this front's; the default realm is the first
   * created, the lowest ID of any shard's. */
  private place(directories: readonly Directory[]): void {
    for (const [shard, directory] of directories.entries()) {
      for (const [id, subdomain, generation] of directory.realms) {
        const placed = this.shardOf.get(id);
        const named = this.bySubdomain.get(subdomain);
        if ((placed && placed !== this.links[shard]) || (named !== undefined && named !== id)) throw new Error(`realm ${id} ('${subdomain}') is in two shards of ${this.config.dataDir}`);
        this.shardOf.set(id, this.links[shard]!);
        this.bySubdomain.set(subdomain, id);
        if (!this.handles.has(id)) this.handles.set(id, new ThreadRealm({ id, subdomain }, this, generation, this.config));
      }
    }
    this.defaultRealm = firstCreated(directories.map((directory) => directory.defaultRealm));
  }

  forHost(host: string): RealmHandle | undefined {
    const id = realmIdForHost(host, this.externalHostname, this.bySubdomain, () => this.defaultRealm);
    return id === undefined ? undefined : this.handles.get(id);
  }

  command<N extends CommandName>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return this.linkOf(realmId).send({ kind: 'command', realmId, request: requestOf(name, userId, input) }).then((reply) => outputOf<N>(reply));
  }

  commandFields<N extends FieldsCommand>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields> {
    return this.linkOf(realmId).send({ kind: 'command', realmId, request: fieldsRequest(name, userId, input) }).then(jsonFieldsOf);
  }

  /** The queues are kept in shard 0's store. */
  async saveQueues(snapshots: readonly QueueSnapshot[]): Promise<void> {
    await this.links[0]!.request({ kind: 'saveQueues', snapshots: [...snapshots] });
  }

  takeSavedQueues(): Promise<QueueSnapshot[]> {
    return this.links[0]!.request({ kind: 'takeQueues' });
  }

  /** Stops the realms' timers; resolves once every accepted write is durable. */
  async stop(): Promise<void> {
    await this.everyShard({ kind: 'stop' });
  }

  /** Resolves once this front has everything the realm threads sent it before. */
  async sync(): Promise<void> {
    await this.everyShard({ kind: 'sync' });
  }

  /** Closes the stores: the realm threads' work is done. */
  async closeStore(): Promise<void> {
    await this.everyShard({ kind: 'close' });
  }

  /** Promise rejections nobody handled on the realm threads, as they last reported. */
  get realmThreadRejections(): number {
    return this.sum((stats) => stats.unhandledRejections);
  }

  /** The realm side's figures for the server's metrics, every shard's added up. */
  metricSources(): RealmSources {
    return {
      mailboxDepth: () => this.sum((stats) => stats.mailboxDepth),
      realmsLoaded: () => this.sum((stats) => stats.realmsLoaded),
      storeBytes: () => this.sum((stats) => stats.storeBytes),
      keptJsonBytes: () => this.sum((stats) => stats.keptJsonBytes),
      realms: () => this.links.flatMap((link) => link.stats.realms).sort((a, b) => a.id - b.id),
      nodes: () => null,
    };
  }

  private sum(of: (stats: RealmStats) => number): number {
    return this.links.reduce((total, link) => total + of(link.stats), 0);
  }

  private async everyShard(message: { kind: 'stop' | 'sync' | 'close' }): Promise<void> {
    await Promise.all(this.links.map((link) => link.request(message)));
  }

  /** The link to a realm's shard (shard 0's for a realm no shard told of: it answers that there
   * is no such realm). */
  private linkOf(realmId: number): ShardLink {
    return this.shardOf.get(realmId) ?? this.links[0]!;
  }

  private tell(realmId: number, users: [userId: number, holding: Holding][]): void {
    if (users.length > 0) this.shardOf.get(realmId)?.post({ kind: 'holders', realmId, users });
  }

  /** Drops the queues of the realms a shard holds: emissions of theirs may be lost. */
  private dropQueuesOf(link: ShardLink): void {
    for (const [realmId, holder] of this.shardOf) if (holder === link) this.queues.deleteRealmQueues(realmId);
  }

  private catchUp(): void {
    for (const link of this.links) link.catchUp();
  }

  private receive(message: Received): void {
    switch (message.kind) {
      case 'events':
        for (const { realmId, emissions, from } of message.published) {
          for (const emission of emissions) crossed(emission.event);
          // Not following on, they pass over emissions the realm thread could not copy (fronts.ts).
          this.queues.publishFollowing(realmId, emissions, from);
        }
        return;
      case 'metrics':
        record(this.config.metrics, message.observations);
        return;
    }
  }
}

/** The realm threads, one a shard: the main thread's front, and the ports of the others (for the
 * I/O threads). */
export class RealmThreads {
  /** The main thread's front: it stops and closes the realm threads and hears their metrics. */
  readonly main: RealmFront;
  /** The ports of the fronts besides the main one (by their index less one), to each shard. */
  readonly otherFronts: MessagePort[][];
  private readonly workers: { worker: Worker; closing: () => void }[];

  /** Starts a realm thread for each of `shards` shards, each with a port for each of `frontCount`
   * fronts. The realms start once every front has started (`RealmFront.start`): the main one
   * here, the others where their ports are taken. */
  constructor(config: Config, frontCount: number, counts: QueueCounts, generation: number, shards: number) {
    const ids = newIdCountersShare();
    const channels = Array.from({ length: shards }, () => Array.from({ length: frontCount }, () => new MessageChannel()));
    this.workers = channels.map((ofShard, shard) => {
      const data: RealmThreadData = { fronts: ofShard.map((channel) => channel.port1), shard, shards, ids };
      const worker = new Worker(new URL('./realmThread.js', import.meta.url), { name: shard === 0 ? 'realms' : `realms-${shard}`, workerData: data, transferList: data.fronts });
      return { worker, closing: supervise(worker, shard === 0 ? 'the realm thread' : `realm thread ${shard}`, config) };
    });
    const portsOf = (front: number) => channels.map((ofShard) => ofShard[front]!.port2);
    this.main = new RealmFront(config, portsOf(0), 0, frontCount, counts, generation);
    this.otherFronts = Array.from({ length: frontCount - 1 }, (_, at) => portsOf(at + 1));
  }

  /** Closes the stores and ends the realm threads. */
  async close(): Promise<void> {
    await this.main.closeStore();
    for (const { closing } of this.workers) closing();
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }
}
