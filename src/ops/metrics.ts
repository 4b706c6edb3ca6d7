// The server's measurements, in Prometheus's form (prom-client): what each layer reports as it
// works (a request answered, a command run, a write made durable, events fanned out) and what is
// read when the metrics are scraped (sockets, queues, mailboxes, the store's size). Each server
// has a registry of its own; the process's metrics (CPU, memory, event-loop lag, GC) join it when
// it is served.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ArrayHistogram } from './histogram.js';

/** A realm as the operator's status page lists it. */
export interface RealmOverview {
  id: number;
  subdomain: string;
  /** Its actor runs in this process. */
  loaded: boolean;
  /** In a cluster, the node whose lease it is under (null: none live). */
  owner?: string | null;
}

/** The figures of the realms' side: where the realms run (this thread, the realm thread, a
 * cluster node) reports them. */
export type RealmSources = Pick<MetricSources, 'mailboxDepth' | 'realmsLoaded' | 'storeBytes' | 'keptJsonBytes' | 'realms' | 'nodes'>;

/** What is read at each scrape; set once the server is assembled. */
export interface MetricSources {
  openSockets(): number;
  eventQueues(): number;
  /** Commands waiting in every realm's mailbox. */
  mailboxDepth(): number;
  realmsLoaded(): number;
  /** The bytes of the LMDB data file. */
  storeBytes(): number;
  /** The heap the JSON kept of realms' states takes, as counted (organization/keptJson.ts). */
  keptJsonBytes(): number;
  unhandledRejections(): number;
  /** Every realm the server knows (in a cluster, the directory's, with their owners). */
  realms(): RealmOverview[];
  /** The live nodes of the cluster; null standalone. */
  nodes(): string[] | null;
  /** Per realm, the users with an event queue that a client reads now (a socket attached or a
   * long-poll waiting). */
  usersOnline(): Map<number, number>;
}

/** Cumulative counts of a histogram, summed over its labels: `counts[i]` observations took at most
 * `bounds[i]` seconds, and the last count (beyond the bounds) is every observation. */
export interface Buckets {
  bounds: number[];
  counts: number[];
}

/** What the operator's status page shows (GET /status.json on the metrics port): the gauges now,
 * and counters and latency buckets since the start, which the page turns into rates and
 * percentiles over its refresh interval. */
export interface StatusSnapshot {
  /** When it was read (ms since the epoch). */
  at: number;
  uptimeSeconds: number;
  nodes: string[] | null;
  realms: (RealmOverview & { usersOnline: number })[];
  openSockets: number;
  eventQueues: number;
  mailboxDepth: number;
  storeBytes: number;
  eventsDelivered: number;
  /** Every HTTP request but the event long-poll (which waits on purpose). */
  requests: Buckets;
  commits: Buckets;
}

/** The event long-poll's route: its requests wait for events, so their time says nothing of speed. */
const LONG_POLL = { method: 'GET', route: '/api/v1/events' };

/** Latency buckets from a tenth of a millisecond to a minute (long-polls wait up to a minute). */
const SECONDS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Metrics {
  readonly registry = new Registry();
  private sources: MetricSources | undefined;
  private processMetrics = false;

  // Observed per request and per command: kept in typed arrays (ArrayHistogram).
  private readonly requests = new ArrayHistogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status: time from the request to the answer',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly commands = new ArrayHistogram({
    name: 'parley_command_duration_seconds',
    help: 'Realm commands by name: time from entering the mailbox to the answer',
    labelNames: ['command', 'outcome'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly commits = new Histogram({
    name: 'parley_write_commit_seconds',
    help: "A write command's commit, until it may be answered: the LMDB batch made durable (in a cluster, the log append)",
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly fanouts = new Histogram({
    name: 'parley_fanout_seconds',
    help: "Putting one write's events into every queue that wants them",
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly delivered = new Counter({ name: 'parley_events_delivered_total', help: 'Events put into event queues (one per queue reached)', registers: [this.registry] });
  private readonly sockets = new Counter({ name: 'parley_websocket_closes_total', help: 'Event WebSockets closed, by close code', labelNames: ['code'] as const, registers: [this.registry] });
  private readonly renders = new Counter({
    name: 'parley_message_renders_total',
    help: "New messages' renderings by where they were made: off the realm's thread (a render worker, or the thread serving clients), or on it",
    labelNames: ['on'] as const,
    registers: [this.registry],
  });

  constructor() {
    const watched = () => this.sources;
    const gauge = (name: string, help: string, read: (sources: MetricSources) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          // prom-client calls this with the gauge as `this`.
          const sources = watched();
          if (sources) this.set(read(sources));
        },
      });
    gauge('parley_websockets_open', 'Event WebSockets open', (sources) => sources.openSockets());
    gauge('parley_event_queues', 'Event queues held', (sources) => sources.eventQueues());
    gauge('parley_mailbox_depth', "Commands waiting in the realms' mailboxes", (sources) => sources.mailboxDepth());
    gauge('parley_realms_loaded', 'Realms whose actor runs in this process', (sources) => sources.realmsLoaded());
    gauge('parley_store_bytes', 'Size of the LMDB data file', (sources) => sources.storeBytes());
    gauge('parley_kept_json_bytes', "Heap the JSON kept of realms' states takes, as counted against PARLEY_KEPT_JSON_MB", (sources) => sources.keptJsonBytes());
    gauge('parley_unhandled_rejections', 'Promise rejections nobody handled since the start (bugs: each is logged)', (sources) => sources.unhandledRejections());
  }

  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.record([method, route, status], seconds);
  }

  command(command: string, outcome: 'ok' | 'error', seconds: number): void {
    this.commands.record([command, outcome], seconds);
  }

  commit(seconds: number): void {
    this.commits.observe(seconds);
  }

  fanout(deliveries: number, seconds: number): void {
    this.delivered.inc(deliveries);
    this.fanouts.observe(seconds);
  }

  /** Each label's child, made once: a message's rendering is counted on the send path. */
  private readonly renderedOn = { worker: this.renders.labels('worker'), realm: this.renders.labels('realm') };

  rendered(on: 'worker' | 'realm'): void {
    this.renderedOn[on].inc();
  }

  socketClosed(code: number): void {
    this.sockets.inc({ code });
  }

  /** What the status page shows; null until the server is assembled. */
  async status(): Promise<StatusSnapshot | null> {
    const sources = this.sources;
    if (!sources) return null;
    const online = sources.usersOnline();
    return {
      at: Date.now(),
      uptimeSeconds: Math.round(process.uptime()),
      nodes: sources.nodes(),
      realms: sources.realms().map((realm) => ({ ...realm, usersOnline: online.get(realm.id) ?? 0 })),
      openSockets: sources.openSockets(),
      eventQueues: sources.eventQueues(),
      mailboxDepth: sources.mailboxDepth(),
      storeBytes: sources.storeBytes(),
      eventsDelivered: (await this.delivered.get()).values.reduce((sum, { value }) => sum + value, 0),
      requests: await buckets(this.requests, (labels) => labels.method !== LONG_POLL.method || labels.route !== LONG_POLL.route),
      commits: await buckets(this.commits, () => true),
    };
  }

  /** The text Prometheus scrapes, with the process's own metrics from the first scrape on. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    if (!this.processMetrics) {
      this.processMetrics = true;
      collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** A histogram's buckets summed over the label sets `keep` accepts. */
async function buckets<T extends string>(histogram: Histogram<T>, keep: (labels: Partial<Record<T, string | number>>) => boolean): Promise<Buckets> {
  const counts = new Array<number>(SECONDS.length + 1).fill(0);
  for (const { metricName, labels, value } of (await histogram.get()).values) {
    if (!metricName?.endsWith('_bucket') || !keep(labels)) continue;
    // prom-client adds the bucket's bound as an `le` label of its own.
    const le = (labels as Record<string, unknown>).le;
    const index = le === '+Inf' ? SECONDS.length : SECONDS.indexOf(Number(le));
    if (index >= 0) counts[index]! += value;
  }
  return { bounds: SECONDS, counts };
}
