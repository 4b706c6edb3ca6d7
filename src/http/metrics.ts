// The operator's port (PARLEY_METRICS_HOST:PARLEY_METRICS_PORT, loopback by default): GET /metrics
// for Prometheus, and the status page (GET /status, its data at GET /status.json, its files under
// /static/). Never on the API's port, where anyone could read the server's insides and every
// organization's names.
import uWS from 'uWebSockets.js';
import type { Metrics } from '../ops/metrics.js';
import { fileHeaders } from './response.js';
import type { FileBody } from './route.js';
import { webAssets } from './webAssets.js';

export interface MetricsServer {
  readonly port: number;
  close(): void;
}

const NOT_FOUND = 'GET /metrics, /status or /status.json\n';

interface Answer {
  status?: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** Answers with what `produce` resolves to, unless the client left first. */
function answer(res: uWS.HttpResponse, produce: () => Promise<Answer>): void {
  let aborted = false;
  res.onAborted(() => (aborted = true));
  void produce().then(({ status, headers, body }) => {
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(status ?? '200 OK');
      for (const [name, value] of Object.entries(headers)) res.writeHeader(name, value);
      res.end(body);
    });
  });
}

const file = (found: FileBody | undefined) => async (): Promise<Answer> =>
  found
    ? { headers: fileHeaders(found), body: found.body }
    : { status: '404 Not Found', headers: {}, body: NOT_FOUND };

export async function serveMetrics(listen: { host: string; port: number }, metrics: Metrics): Promise<MetricsServer> {
  const app = uWS.App();
  app.get('/metrics', (res) =>
    answer(res, async () => {
      const { contentType, body } = await metrics.exposition();
      return { headers: { 'Content-Type': contentType }, body };
    }),
  );
  app.get('/status', (res) => answer(res, file(webAssets().page('status'))));
  app.get('/status.json', (res) => answer(res, async () => ({ headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: JSON.stringify(await metrics.status()) })));
  app.get('/static/:file', (res, req) => answer(res, file(webAssets().asset(req.getParameter(0) ?? ''))));
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end(NOT_FOUND)); // uWebSockets.js's route for every HTTP method, not TypeScript's `any` type
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
