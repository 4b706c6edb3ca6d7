// A runner is a group of workers driven as one: worker threads on this machine, or an agent's on
// another (remote.ts). The run drives every runner alike: wait until ready, start at one instant,
// read progress each second, stop (Ctrl-C), finish, and collect measurements.
import { Worker } from 'node:worker_threads';
import type { Measurements } from './measurements.js';
import type { Progress, RunnerMessage, WorkerMessage, WorkerPlan } from './plan.js';

export interface Runner {
  ready: Promise<void>;
  start(startAt: number): void;
  /** The latest progress of each of its workers. */
  progress(): Progress[];
  stop(): void;
  finish(): Promise<Measurements[]>;
  /** Ends its workers at once (a failed run). */
  abort(): void;
}

const workerScript = new URL('./worker.js', import.meta.url);

/** Worker threads on this machine, one per plan. */
export class LocalRunner implements Runner {
  private readonly workers: Worker[];
  private readonly latest: (Progress | undefined)[];
  private readonly results: Promise<Measurements>[];
  readonly ready: Promise<void>;

  constructor(plans: readonly WorkerPlan[]) {
    this.workers = plans.map((plan) => new Worker(workerScript, { workerData: plan }));
    this.latest = plans.map(() => undefined);
    const readies: Promise<void>[] = [];
    this.results = this.workers.map((worker, w) => {
      let onReady!: () => void;
      let onFailed!: (error: Error) => void;
      readies.push(new Promise((resolve, reject) => ((onReady = resolve), (onFailed = reject))));
      return new Promise<Measurements>((resolve, reject) => {
        worker.on('message', (message: WorkerMessage) => {
          if (message.type === 'ready') onReady();
          else if (message.type === 'progress') this.latest[w] = message.progress;
          else if (message.type === 'result') resolve(message.measurements);
          else {
            onFailed(new Error(message.message));
            reject(new Error(message.message));
          }
        });
        worker.on('error', (error) => {
          onFailed(error);
          reject(error);
        });
        worker.on('exit', () => reject(new Error(`worker ${w} ended without a result`)));
      });
    });
    this.results.forEach((result) => result.catch(() => undefined));
    this.ready = Promise.all(readies).then(() => undefined);
  }

  private send(message: RunnerMessage): void {
    for (const worker of this.workers) worker.postMessage(message);
  }

  start(startAt: number): void {
    this.send({ type: 'start', startAt });
  }

  progress(): Progress[] {
    return this.latest.filter((progress): progress is Progress => progress !== undefined);
  }

  stop(): void {
    this.send({ type: 'stop' });
  }

  async finish(): Promise<Measurements[]> {
    this.send({ type: 'finish' });
    const results = await Promise.all(this.results);
    // Requests a stalled server never answered would keep a worker alive (an agent runs on).
    this.abort();
    return results;
  }

  abort(): void {
    for (const worker of this.workers) void worker.terminate();
  }
}

/** The plans of `count` workers numbered from `first` among `total` in the run. */
export function workerPlans(base: Omit<WorkerPlan, 'index' | 'count'>, first: number, count: number, total: number): WorkerPlan[] {
  return Array.from({ length: count }, (_, k) => ({ ...base, index: first + k, count: total }));
}
