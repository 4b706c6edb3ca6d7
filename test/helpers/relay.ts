// A push relay ("bouncer") on loopback for tests: answers as it is told — 200, 4xx, 5xx, never, or
// by dropping the connection — and records what it was sent.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';

export type RelayBehaviour = 'ok' | 'reject' | 'fail' | 'hang' | 'reset';

export interface RelayRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export class FakeRelay {
  behaviour: RelayBehaviour = 'ok';
  readonly requests: RelayRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeRelay> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new FakeRelay(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (request, response) => {
      void readJson(request).then((body) => {
        relay.requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
        switch (relay.behaviour) {
          case 'ok':
            return response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"result":"success","msg":""}');
          case 'reject':
            return response.writeHead(401, { 'Content-Type': 'application/json' }).end('{"result":"error","code":"INVALID_ZULIP_SERVER","msg":"Invalid server"}');
          case 'fail':
            return response.writeHead(503).end('unavailable');
          case 'hang':
            return undefined;
          case 'reset':
            return request.socket.destroy();
        }
      });
    });
    return relay;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A loopback URL where nothing listens: connections are refused. */
export async function refusingUrl(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
