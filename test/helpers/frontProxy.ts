// A TCP proxy on loopback in front of a Parley server, as an operator's reverse proxy stands in
// front of it: clients keep one address while the server behind restarts (on a new port: the old
// port's connections linger in TIME_WAIT, which keeps uWebSockets.js's exclusive listen from
// binding it again at once). It can also cut every WebSocket connection through it at once (a
// dropped event stream, as a proxy's restart or a network blip drops them).
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface FrontProxy {
  readonly url: string;
  /** Where new connections go from now on. */
  target: number;
  /** Drops the WebSocket connections open through it (HTTP requests go on); answers how many. */
  cutWebSockets(): number;
  close(): Promise<void>;
}

export async function startFrontProxy(target: number): Promise<FrontProxy> {
  const open = new Set<Socket>();
  const webSockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(proxy.target, '127.0.0.1');
    client.once('data', (head: Buffer) => {
      if (/^upgrade: *websocket/im.test(head.toString('latin1'))) webSockets.add(client);
    });
    client.on('close', () => webSockets.delete(client));
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: FrontProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target,
    cutWebSockets() {
      const cut = webSockets.size;
      for (const socket of webSockets) socket.destroy();
      return cut;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}
