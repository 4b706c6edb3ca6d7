// A bot's service for outgoing-webhook tests: an HTTP server on 127.0.0.1 that records each request
// and answers as the test says.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  contentType: string;
  body: string;
}

/** How the service answers: a JSON body, the body's raw text, or not at all until released. */
export type Answer = { status?: number; body?: unknown; raw?: string } | 'hang';

export class BotService {
  readonly received: Received[] = [];
  /** How the next requests are answered (the last one stays). */
  answers: Answer[] = [{ body: { content: 'pong' } }];
  private readonly hanging: ServerResponse[] = [];
  private waiters: (() => void)[] = [];

  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<BotService> {
    let service: BotService | undefined;
    const server = createServer((request, response) => service!.handle(request, response));
    service = new BotService(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return service;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/bot`;
  }

  /** Resolves once `count` requests have arrived (bounded by time). */
  async waitFor(count: number, timeoutMs = 5000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.received;
  }

  /** Answers the requests held by a 'hang' answer. */
  release(body: unknown = { content: 'late' }): void {
    for (const response of this.hanging.splice(0)) response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({ contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      for (const wake of this.waiters.splice(0)) wake();
      const answer = this.answers.length > 1 ? this.answers.shift()! : this.answers[0]!;
      if (answer === 'hang') return void this.hanging.push(response);
      response.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' }).end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    });
  }
}
