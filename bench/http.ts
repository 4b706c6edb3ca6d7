// HTTP benchmark (`npm run bench -- http`): the REST hot path through a real connection pool
// (autocannon, keep-alive, on loopback) against a bare uWebSockets.js server from the same package,
// in separate processes, in the same run, at each connection count:
// - GET /users/me with HTTP Basic credentials: authentication, a read command, JSON out;
// - GET /messages (the newest 20 of the user's messages): a read that builds messages;
// - GET /server_settings: no credentials;
// - GET /users/me again with the request log on (info: a JSON line per request) against off
//   (warn): what logging costs.
// Each load follows a short warm-up load of its own (the JIT compiles the path first), and besides
// requests per second and latency gives the server's CPU time per request: all its threads, from
// /proc (less noisy than throughput on a shared machine, where the load generator competes for
// the same cores).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ApiClient } from '../test/helpers/client.js';
import { spawnScript, spawnServer, type ServerProcess } from '../test/helpers/process.js';
import { cpuSeconds, printTable, writeResult, type Row } from './lib/stats.js';
import type { LineChart } from './lib/chart.js';

export interface HttpBenchOptions {
  seconds: number;
  /** The connection counts measured, each a run of its own. */
  connections: number[];
  quick: boolean;
}

interface Endpoint {
  name: string;
  path: string;
  authenticated: boolean;
}

const endpoints: Endpoint[] = [
  { name: 'GET /users/me', path: '/api/v1/users/me', authenticated: true },
  { name: 'GET /messages, newest 20', path: '/api/v1/messages?anchor=newest&num_before=20&num_after=0', authenticated: true },
  { name: 'GET /server_settings', path: '/api/v1/server_settings', authenticated: false },
];

/** How long the warm-up before each measured load lasts. */
const WARM_UP_SECONDS = 1;

async function load(url: string, headers: Record<string, string>, connections: number, seconds: number, pid: number) {
  const run = async (duration: number) => {
    const result = await autocannon({ url, headers, connections, duration, pipelining: 1 });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} answers other than 2xx, ${result.errors} errors`);
    return result;
  };
  await run(WARM_UP_SECONDS);
  const cpuBefore = cpuSeconds(pid);
  const result = await run(seconds);
  const cpu = cpuSeconds(pid) - cpuBefore;
  return { 'requests/s': result.requests.average, 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99, 'server CPU µs/request': (cpu * 1e6) / result.requests.total };
}

async function stopped(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** Runs `measure` against a Parley server with the demo realm and the given log level, and hamlet's
 * credentials. */
async function withParley<T>(logLevel: string, measure: (baseUrl: string, auth: Record<string, string>, pid: number) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-http-'));
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development', PARLEY_LOG_LEVEL: logLevel, PARLEY_LOG_FORMAT: 'json' });
  try {
    const key = await new ApiClient(server.baseUrl).post('/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
    const hamlet = new ApiClient(server.baseUrl, { email: 'hamlet@zulip.com', apiKey: String(key.body.api_key) });
    return await measure(server.baseUrl, hamlet.authHeader(), server.child.pid!);
  } finally {
    await stopped(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runHttp(options: HttpBenchOptions): Promise<void> {
  const bareRate = new Map<number, number>();
  const rows: Row[] = [];
  const bare = await spawnScript(new URL('./lib/bareServer.js', import.meta.url).pathname);
  try {
    for (const connections of options.connections) {
      const measured = await load(`${bare.baseUrl}/`, {}, connections, options.seconds, bare.child.pid!);
      bareRate.set(connections, measured['requests/s']);
      rows.push({ server: 'bare uWebSockets.js "hello"', connections, ...measured, '× bare': 1 });
    }
  } finally {
    await stopped(bare);
  }
  const row = (server: string, connections: number, measured: Awaited<ReturnType<typeof load>>): Row => ({ server, connections, ...measured, '× bare': measured['requests/s'] / bareRate.get(connections)! });
  await withParley('warn', async (baseUrl, auth, pid) => {
    for (const endpoint of endpoints) {
      for (const connections of options.connections) rows.push(row(`Parley ${endpoint.name}`, connections, await load(`${baseUrl}${endpoint.path}`, endpoint.authenticated ? auth : {}, connections, options.seconds, pid)));
    }
  });
  const [usersMe] = endpoints;
  const logged = Math.max(...options.connections.filter((count) => count <= 64));
  rows.push(await withParley('info', async (baseUrl, auth, pid) => row(`Parley ${usersMe!.name}, request log on`, logged, await load(`${baseUrl}${usersMe!.path}`, auth, logged, options.seconds, pid))));
  printTable(`http: keep-alive connections for ${options.seconds} s each, on loopback (request log off unless said)`, rows);
  console.log(`results: ${writeResult(options.quick ? 'http-quick' : 'http', { options, rows }, { charts: [byConnections(rows, options, 'requests/s'), byConnections(rows, options, 'p99 ms')] })}`);
}

/** A column by connection count: one line per server and endpoint measured at every count. */
function byConnections(rows: readonly Row[], options: HttpBenchOptions, column: 'requests/s' | 'p99 ms'): LineChart {
  const servers = [...new Set(rows.map((row) => String(row.server)))].filter((server) => rows.filter((row) => row.server === server).length === options.connections.length);
  return {
    kind: 'lines',
    title: `http: ${column === 'requests/s' ? 'throughput' : 'p99 latency'} by keep-alive connections`,
    unit: column,
    xTitle: 'connections',
    points: options.connections,
    lines: servers.map((server) => ({ name: server, values: options.connections.map((connections) => Number(rows.find((row) => row.server === server && row.connections === connections)?.[column])) })),
  };
}
