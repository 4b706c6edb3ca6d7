// HTTP servers on loopback that stand in for the outside services Parley talks to (a push relay,
// a video call provider): each request's body is read whole, then handed to the test's handler.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(handle: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<LoopbackServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      // A request left hanging on purpose must not hold the server open.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
