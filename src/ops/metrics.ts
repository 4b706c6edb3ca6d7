// The server's measurements, in Prometheus's form (prom-client): what each layer reports as it
// works (a request answered, a command run, a write made durable, events fanned out) and what is
// read when the metrics are scraped (sockets, queues, mailboxes, the store's size). Each server
// has a registry of its own; the process's metrics (CPU, memory, event-loop lag, GC) join it when
// it is served.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What is read at each scrape; set once the server is assembled. */
export interface MetricSources {
  openSockets(): number;
  eventQueues(): number;
  /** Commands waiting in every realm's mailbox. */
  mailboxDepth(): number;
  realmsLoaded(): number;
  /** The bytes of the LMDB data file. */
  storeBytes(): number;
  unhandledRejections(): number;
}

/** Latency buckets from a tenth of a millisecond to a minute (long-polls wait up to a minute). */
const SECONDS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Metrics {
  readonly registry = new Registry();
  private sources: MetricSources | undefined;
  private processMetrics = false;

  private readonly requests = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status: time from the request to the answer',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly commands = new Histogram({
    name: 'parley_command_duration_seconds',
    help: 'Realm commands by name: time from entering the mailbox to the answer',
    labelNames: ['command', 'outcome'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly commits = new Histogram({
    name: 'parley_write_commit_seconds',
    help: "A write command's commit: the LMDB batch made durable (and, in a cluster, the log append)",
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
    gauge('parley_unhandled_rejections', 'Promise rejections nobody handled since the start (bugs: each is logged)', (sources) => sources.unhandledRejections());
  }

  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status }, seconds);
  }

  command(command: string, outcome: 'ok' | 'error', seconds: number): void {
    this.commands.observe({ command, outcome }, seconds);
  }

  commit(seconds: number): void {
    this.commits.observe(seconds);
  }

  fanout(deliveries: number, seconds: number): void {
    this.delivered.inc(deliveries);
    this.fanouts.observe(seconds);
  }

  socketClosed(code: number): void {
    this.sockets.inc({ code });
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
