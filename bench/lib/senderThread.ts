// A client that sends from a thread of its own and times each reply there: timed on the thread
// whose event loop also reads thousands of WebSocket frames, a reply waits behind those frames, and
// the figure is the load generator's rather than the server's.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ApiClient, type Credentials, type Params } from '../../test/helpers/client.js';

interface Job {
  method: string;
  path: string;
  params: Params;
}

export interface TimedReply {
  status: number;
  body: Record<string, unknown>;
  /** From the request's start to the whole reply, on the sender's thread. */
  ms: number;
}

export class SenderThread {
  private readonly worker: Worker;
  private waiting: { resolve: (reply: TimedReply) => void; reject: (error: Error) => void } | undefined;

  constructor(baseUrl: string, credentials: Credentials) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { baseUrl, credentials } });
    this.worker.on('message', (reply: TimedReply) => this.waiting?.resolve(reply));
    this.worker.on('error', (error) => this.waiting?.reject(error));
  }

  /** One request at a time. */
  call(method: string, path: string, params: Params = {}): Promise<TimedReply> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage({ method, path, params } satisfies Job);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { baseUrl, credentials } = workerData as { baseUrl: string; credentials: Credentials };
  const client = new ApiClient(baseUrl, credentials).keptAlive();
  port.on('message', async ({ method, path, params }: Job) => {
    const started = performance.now();
    const { status, body } = await client.call(method, path, params);
    port.postMessage({ status, body, ms: performance.now() - started } satisfies TimedReply);
  });
}
