// A push relay ("bouncer") on loopback for tests: answers as it is told — 200, 4xx, 5xx, never, or
// by dropping the connection — and records what it was sent.
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { listenOnLoopback, type LoopbackServer } from './loopback.js';

export type RelayBehaviour = 'ok' | 'reject' | 'fail' | 'hang' | 'reset';

export interface RelayRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export class FakeRelay {
  behaviour: RelayBehaviour = 'ok';
  readonly requests: RelayRequest[] = [];
  private server: LoopbackServer | undefined;

  get url(): string {
    return this.server!.url;
  }

  static async start(): Promise<FakeRelay> {
    const relay = new FakeRelay();
    relay.server = await listenOnLoopback((request, body, response) => {
      relay.requests.push({ path: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(body) as Record<string, unknown> });
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
    return relay;
  }

  close(): Promise<void> {
    return this.server!.close();
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
