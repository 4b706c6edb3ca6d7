// GET /metrics for Prometheus, on an address of its own (PARLEY_METRICS_HOST:PARLEY_METRICS_PORT,
// loopback by default): never on the API's port, where anyone could read the server's insides.
import uWS from 'uWebSockets.js';
import type { Metrics } from '../ops/metrics.js';

export interface MetricsServer {
  readonly port: number;
  close(): void;
}

export async function serveMetrics(listen: { host: string; port: number }, metrics: Metrics): Promise<MetricsServer> {
  const app = uWS.App();
  app.get('/metrics', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    void metrics.exposition().then(({ contentType, body }) => {
      if (!aborted) res.cork(() => res.writeHeader('Content-Type', contentType).end(body));
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end('GET /metrics\n'));
  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(listen.host, listen.port, uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, (listening) =>
      listening ? resolve(listening) : reject(new Error(`cannot serve metrics on ${listen.host}:${listen.port}: the address is in use or not available`)),
    );
  });
  return {
    port: uWS.us_socket_local_port(socket),
    close() {
      uWS.us_listen_socket_close(socket);
      app.close();
    },
  };
}
