// Render workers for the HTTP layer (PARLEY_RENDER_THREADS): a message's content is rendered on a
// worker with the realm's context at a version, and the realm uses the result if its context is
// still at that version when the message is written (docs/ARCHITECTURE.md, "Threads"). Each worker
// is sent a realm's context once per version it renders with; requests go round the workers. The
// workers start with the first request (loading the renderer costs a worker ~0.5 s of CPU, which a
// server that never sees a long message need not spend), and until one has loaded the realm renders.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../ops/log.js';
import type { RenderContext, RenderedWithTerms, RenderOptions } from './render.js';

export type ToWorker =
  | { kind: 'context'; realmId: number; context: RenderContext }
  | { kind: 'render'; id: number; realmId: number; version: number; content: string; options: RenderOptions };

/** A rendering (null: none made), or word that the worker has loaded and takes requests. */
export type FromWorker = { id: number; made: RenderedWithTerms | null } | { ready: true };

class PoolWorker {
  /** The context version the worker holds, by realm. */
  readonly versions = new Map<number, number>();
  /** Requests it has not answered, by ID. */
  readonly waiting = new Map<number, (made: RenderedWithTerms | null) => void>();
  ready = false;

  constructor(
    readonly worker: Worker,
    log: Logger,
    onExit: () => void,
  ) {
    worker.on('message', (message: FromWorker) => {
      if ('ready' in message) return void (this.ready = true);
      this.waiting.get(message.id)?.(message.made);
      this.waiting.delete(message.id);
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
  private workers: PoolWorker[] | undefined;
  private nextWorker = 0;
  private nextId = 0;

  constructor(
    private readonly threads: number,
    private readonly log: Logger,
  ) {}

  private start(): PoolWorker[] {
    const workers: PoolWorker[] = [];
    for (let index = 0; index < this.threads; index++) {
      const entry: PoolWorker = new PoolWorker(new Worker(new URL('./renderWorker.js', import.meta.url)), this.log, () => {
        this.workers = this.workers?.filter((candidate) => candidate !== entry);
      });
      workers.push(entry);
    }
    return workers;
  }

  /** Renders on the next worker that has loaded; `context` is asked for only when that worker lacks
   * the version. Null when no worker could, or none has loaded yet (the realm renders). */
  async render(realmId: number, version: number, context: () => RenderContext | Promise<RenderContext>, content: string, options: RenderOptions): Promise<RenderedWithTerms | null> {
    const workers = (this.workers ??= this.start());
    let target: PoolWorker | undefined;
    for (let tried = 0; tried < workers.length && !target?.ready; tried++) target = workers[this.nextWorker++ % workers.length];
    if (!target?.ready) return null;
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
    const workers = this.workers ?? [];
    this.workers = [];
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
}
