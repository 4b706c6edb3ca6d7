// Render workers for the HTTP layer (PARLEY_RENDER_THREADS): a message's content is rendered on a
// worker with the realm's context at a version, and the realm uses the result if its context is
// still at that version when the message is written (docs/ARCHITECTURE.md, "Threads"). Each worker
// is sent a realm's context once per version it renders with; requests go round the workers.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../ops/log.js';
import type { RenderContext, RenderedMessage, RenderOptions } from './render.js';

export type ToWorker =
  | { kind: 'context'; realmId: number; context: RenderContext }
  | { kind: 'render'; id: number; realmId: number; version: number; content: string; options: RenderOptions };

export type FromWorker = { id: number; rendered: RenderedMessage | null };

class PoolWorker {
  /** The context version the worker holds, by realm. */
  readonly versions = new Map<number, number>();
  /** Requests it has not answered, by ID. */
  readonly waiting = new Map<number, (rendered: RenderedMessage | null) => void>();

  constructor(
    readonly worker: Worker,
    log: Logger,
    onExit: () => void,
  ) {
    worker.on('message', ({ id, rendered }: FromWorker) => {
      this.waiting.get(id)?.(rendered);
      this.waiting.delete(id);
    });
    // A worker that fails leaves the rotation, and what it had not answered to the realm.
    worker.on('error', (error) => log.error({ err: error }, 'a render worker failed; the realm renders what it had'));
    worker.on('exit', () => {
      this.giveUp();
      onExit();
    });
    worker.unref();
  }

  giveUp(): void {
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
  }
}

export class RenderPool {
  private workers: PoolWorker[] = [];
  private nextWorker = 0;
  private nextId = 0;

  constructor(threads: number, log: Logger) {
    for (let index = 0; index < threads; index++) {
      const entry: PoolWorker = new PoolWorker(new Worker(new URL('./renderWorker.js', import.meta.url)), log, () => {
        this.workers = this.workers.filter((candidate) => candidate !== entry);
      });
      this.workers.push(entry);
    }
  }

  /** Renders on the next worker; `context` is asked for only when that worker lacks the version.
   * Null when no worker could (the realm renders). */
  async render(realmId: number, version: number, context: () => RenderContext | Promise<RenderContext>, content: string, options: RenderOptions): Promise<RenderedMessage | null> {
    const target = this.workers[this.nextWorker++ % Math.max(1, this.workers.length)];
    if (!target) return null;
    if (target.versions.get(realmId) !== version) {
      // Marked first: a request that overtakes the context is answered with nothing, not sent twice.
      target.versions.set(realmId, version);
      target.worker.postMessage({ kind: 'context', realmId, context: await context() } satisfies ToWorker);
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      target.waiting.set(id, resolve);
      target.worker.postMessage({ kind: 'render', id, realmId, version, content, options } satisfies ToWorker);
    });
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
}
