// HTTP benchmark (`npm run bench -- http`): the REST hot path through a real connection pool
// (autocannon, keep-alive, on loopback) against a bare uWebSockets.js server from the same package,
// in separate processes, in the same run:
// - GET /users/me with HTTP Basic credentials: authentication, a read command, JSON out;
// - the same with the request log on (info: a JSON line per request) and off (warn): what logging costs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ApiClient } from '../test/helpers/client.js';
import { spawnScript, spawnServer, type ServerProcess } from '../test/helpers/process.js';
import { printTable, writeResult, type Row } from './lib/stats.js';

export interface HttpBenchOptions {
  seconds: number;
  connections: number;
  quick: boolean;
}

async function load(url: string, headers: Record<string, string>, options: HttpBenchOptions): Promise<Row> {
  const result = await autocannon({ url, headers, connections: options.connections, duration: options.seconds, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} answers other than 2xx, ${result.errors} errors`);
  return { 'requests/s': result.requests.average, 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99 };
}

async function stopped(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

async function parleyRow(logLevel: string, options: HttpBenchOptions): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-http-'));
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development', PARLEY_LOG_LEVEL: logLevel, PARLEY_LOG_FORMAT: 'json' });
  try {
    const key = await new ApiClient(server.baseUrl).post('/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
    const hamlet = new ApiClient(server.baseUrl, { email: 'hamlet@zulip.com', apiKey: String(key.body.api_key) });
    return { server: `Parley GET /users/me, log ${logLevel}`, ...(await load(`${server.baseUrl}/api/v1/users/me`, hamlet.authHeader(), options)) };
  } finally {
    await stopped(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runHttp(options: HttpBenchOptions): Promise<void> {
  const bare = await spawnScript(new URL('./lib/bareServer.js', import.meta.url).pathname);
  const rows: Row[] = [];
  try {
    rows.push({ server: 'bare uWebSockets.js "hello"', ...(await load(`${bare.baseUrl}/`, {}, options)) });
  } finally {
    await stopped(bare);
  }
  rows.push(await parleyRow('warn', options));
  rows.push(await parleyRow('info', options));
  const ceiling = Number(rows[0]!['requests/s']);
  for (const row of rows) row['× bare'] = Number(row['requests/s']) / ceiling;
  printTable(`http: ${options.connections} keep-alive connections for ${options.seconds} s each, on loopback`, rows);
  console.log(`results: ${writeResult(options.quick ? 'http-quick' : 'http', { options, rows })}`);
}
