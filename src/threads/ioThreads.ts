// The I/O threads (PARLEY_THREADS above 2): the fronts besides the main thread's, each a worker
// (src/ioThread.ts) that serves clients on the server's port — shared, the kernel spreading
// connections over the threads — with event queues of its own, reaching the realm thread and the
// other fronts over ports the main thread made. This is what the main thread and an I/O thread
// tell each other (its start, measurements and gauges, its stop), and the main thread's handle on
// one.
import { Worker, type MessagePort } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { EventQueues } from '../events/queues.js';
import { unhandled } from '../setup.js';
import type { MetricSources } from '../ops/metrics.js';
import { record } from './metricsRelay.js';
import { supervise } from './workers.js';
import type { Observation } from './protocol.js';

/** What an I/O thread starts with (its workerData); `Shares`, what every front shares with the
 * others (plain data: src/app.ts's). */
export interface IoThreadData<Shares> {
  /** Its place among the fronts (1 and on: the main thread's is 0). */
  index: number;
  /** How many fronts there are. */
  count: number;
  /** Its port to each realm thread, by shard. */
  realms: MessagePort[];
  /** Its ports to the other fronts, by their index. */
  peers: Map<number, MessagePort>;
  /** The port it listens on, and whether it shares it (its own port: the tests of fronts). */
  port: number;
  sharing: 'exclusive' | 'shared';
  shares: Shares;
}

/** What an I/O thread reports for the server's gauges, every second. */
export interface FrontGauges {
  openSockets: number;
  eventQueues: number;
  /** Per realm, the users reading a queue here now. */
  usersOnline: [realmId: number, userIds: number[]][];
  /** Promise rejections nobody handled on this thread. */
  unhandledRejections: number;
}

/** How often an I/O thread reports its gauges. */
export const GAUGES_INTERVAL_MS = 1000;

/** A front's gauges now: its server's sockets, its queues. */
export function gaugesOf(http: { readonly openSockets: number }, queues: EventQueues): FrontGauges {
  return { openSockets: http.openSockets, eventQueues: queues.size, usersOnline: [...queues.usersOnline()], unhandledRejections: unhandled.rejections };
}

/** The server's gauges of the clients it serves, from every front's (a user reading queues on two
 * fronts is online once), and of the promise rejections nobody handled on any thread (`elsewhere`:
 * those of threads other than the fronts). */
export function clientSources(fronts: () => FrontGauges[], elsewhere: () => number): Pick<MetricSources, 'openSockets' | 'eventQueues' | 'usersOnline' | 'unhandledRejections'> {
  const sum = (of: (front: FrontGauges) => number) => fronts().reduce((total, front) => total + of(front), 0);
  return {
    openSockets: () => sum((front) => front.openSockets),
    eventQueues: () => sum((front) => front.eventQueues),
    unhandledRejections: () => sum((front) => front.unhandledRejections) + elsewhere(),
    usersOnline: () => {
      const online = new Map<number, Set<number>>();
      for (const front of fronts()) {
        for (const [realmId, users] of front.usersOnline) {
          const seen = online.get(realmId);
          if (seen) for (const user of users) seen.add(user);
          else online.set(realmId, new Set(users));
        }
      }
      return new Map([...online].map(([realmId, users]) => [realmId, users.size]));
    },
  };
}

/** Stop accepting connections; stop serving clients; then (once the realms stopped) keep the
 * queues across the restart. */
export type ToIoThread = { kind: 'stopListening' } | { kind: 'stop' } | { kind: 'finish' };

export type FromIoThread = { kind: 'serving' } | { kind: 'done'; step: ToIoThread['kind']; failure?: string } | { kind: 'metrics'; observations: Observation[] } | { kind: 'gauges'; gauges: FrontGauges };

/** The main thread's handle on an I/O thread. */
export class IoThread {
  /** Its latest gauges. */
  gauges: FrontGauges = { openSockets: 0, eventQueues: 0, usersOnline: [], unhandledRejections: 0 };
  private readonly worker: Worker;
  private readonly closing: () => void;
  /** Settles the step asked of it, when it says it is done. */
  private stepDone: ((failure?: string) => void) | undefined;

  private constructor(config: Config, data: IoThreadData<unknown>) {
    this.worker = new Worker(new URL('../ioThread.js', import.meta.url), { name: `io-${data.index}`, workerData: data, transferList: [...data.realms, ...data.peers.values()] });
    this.closing = supervise(this.worker, `I/O thread ${data.index}`, config);
    this.worker.on('message', (message: FromIoThread) => {
      if (message.kind === 'metrics') record(config.metrics, message.observations);
      else if (message.kind === 'gauges') this.gauges = message.gauges;
      else this.stepDone?.(message.kind === 'done' ? message.failure : undefined);
    });
  }

  /** Resolves once it serves clients (after the realms started). */
  static async start<Shares>(config: Config, data: IoThreadData<Shares>): Promise<IoThread> {
    const thread = new IoThread(config, data);
    await thread.awaitStep();
    return thread;
  }

  /** Stops accepting connections (those open are still served). */
  stopListening(): Promise<void> {
    return this.ask({ kind: 'stopListening' });
  }

  /** Stops serving clients: resolves once every request in flight is answered. */
  stop(): Promise<void> {
    return this.ask({ kind: 'stop' });
  }

  /** Keeps its queues across the restart, once the realms stopped; then ends the thread. */
  async finish(): Promise<void> {
    try {
      await this.ask({ kind: 'finish' });
    } finally {
      this.closing();
      await this.worker.terminate();
    }
  }

  private ask(message: ToIoThread): Promise<void> {
    const done = this.awaitStep();
    this.worker.postMessage(message);
    return done;
  }

  private awaitStep(): Promise<void> {
    return new Promise((resolve, reject) => (this.stepDone = (failure) => (failure === undefined ? resolve() : reject(new Error(`I/O thread: ${failure}`)))));
  }
}
