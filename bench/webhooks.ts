// Incoming-webhook benchmark: a service's requests to /api/v1/external/<integration> on loopback
// against a server it starts, posting to a channel of `subscribers` users each holding an event
// queue, next to plain POST /messages with the same text budget. Two figures each: requests per
// second from `senders` kept-alive connections (autocannon, for `seconds`), and the time from a
// request's start to its message event in a subscriber's long-poll, one request at a time (p50,
// p99) — what a team sees between CI finishing and the message appearing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { ApiClient, formEncode, rawRequest } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { buildChannelRealm } from './lib/dataset.js';
import { cpuSeconds, percentile, pool, printTable, writeResult, type Row } from './lib/stats.js';

export interface WebhookBenchOptions {
  subscribers: number;
  senders: number;
  seconds: number;
  /** Requests timed one at a time, from receipt to event. */
  rounds: number;
  quick: boolean;
}

/** One way of posting a message: a URL, its headers and body. */
interface Poster {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The integration and fixture measured: CircleCI's workflow-completed, as CircleCI sends it (the
 * event is named in the body). */
const INTEGRATION = 'circleci';
const FIXTURE = new URL('../../test/fixtures/webhooks/circleci/github_workflow_completed.json', import.meta.url);

async function throughput(baseUrl: string, pid: number, poster: Poster, connections: number, seconds: number): Promise<Row> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const result = await autocannon({ url: `${baseUrl}${poster.path}`, method: 'POST', headers: poster.headers, body: poster.body, connections, pipelining: 1, duration: seconds });
  const elapsed = (performance.now() - started) / 1000;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${poster.name}: ${result.non2xx} answers other than 2xx, ${result.errors} errors`);
  const count = result.requests.total;
  return { load: `${poster.name}, ${connections} connections`, requests: count, 'requests/s': count / elapsed, 'server CPU µs/request': ((cpuSeconds(pid) - cpuBefore) * 1e6) / count };
}

/** From each request's start to its message event in a subscriber's queue, one at a time. */
async function toEvent(baseUrl: string, listener: ApiClient, poster: Poster, rounds: number): Promise<Row> {
  const queue = await listener.post('/register', { event_types: ['message'] });
  const queueId = String(queue.body.queue_id);
  let lastEventId = Number(queue.body.last_event_id);
  const latencies: number[] = [];
  for (let round = 0; round < rounds + 5; round++) {
    const polled = listener.get('/events', { queue_id: queueId, last_event_id: lastEventId });
    // The long-poll is parked before the request goes (a short wait: it is on its own connection).
    await new Promise((resolve) => setTimeout(resolve, 2));
    const started = performance.now();
    const posted = await rawRequest(baseUrl, { method: 'POST', path: poster.path, headers: poster.headers, body: poster.body });
    if (posted.status !== 200) throw new Error(`${poster.name}: ${JSON.stringify(posted.body)}`);
    const events = (await polled).body.events as { id: number; type: string }[];
    const elapsed = performance.now() - started;
    lastEventId = events.at(-1)!.id;
    if (round >= 5) latencies.push(elapsed);
  }
  return { load: `${poster.name}, one at a time`, requests: rounds, 'p50 ms to event': percentile(latencies, 50), 'p99 ms to event': percentile(latencies, 99) };
}

export async function runWebhooks(options: WebhookBenchOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-webhooks-'));
  try {
    const { owner, members } = await buildChannelRealm(dataDir, options.subscribers - 1, 'hooks');
    const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production' });
    try {
      await pool(members.slice(1), 20, async (member) => {
        const registered = await new ApiClient(server.baseUrl, member).post('/register', { event_types: ['message'] });
        if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
      });
      const ownerClient = new ApiClient(server.baseUrl, owner);
      const bot = await ownerClient.post('/bots', { full_name: 'CI', short_name: 'ci', bot_type: 2 });
      if (bot.status !== 200) throw new Error(`bot: ${JSON.stringify(bot.body)}`);
      const payload = readFileSync(FIXTURE, 'utf8');
      const webhook: Poster = {
        name: `webhook (${INTEGRATION} workflow)`,
        path: `/api/v1/external/${INTEGRATION}?${new URLSearchParams({ api_key: String(bot.body.api_key), stream: 'hooks' })}`,
        headers: { 'Content-Type': 'application/json' },
        body: payload,
      };
      const plain: Poster = {
        name: 'POST /messages',
        path: '/api/v1/messages',
        headers: { ...ownerClient.authHeader(), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: formEncode({ type: 'stream', to: 'hooks', topic: 'bench', content: 'CI build 42 passed on main: [details](https://ci.example.com/builds/42)' }),
      };
      const listener = new ApiClient(server.baseUrl, members[0]!).keptAlive();
      const rates: Row[] = [];
      const latencies: Row[] = [];
      for (const poster of [plain, webhook]) {
        await throughput(server.baseUrl, server.child.pid!, poster, 1, 1);
        rates.push(await throughput(server.baseUrl, server.child.pid!, poster, options.senders, options.seconds));
        latencies.push(await toEvent(server.baseUrl, listener, poster, options.rounds));
      }
      const about = `to a channel of ${options.subscribers} subscribers with event queues`;
      printTable(`webhooks: an integration's requests per second against POST /messages, ${about}`, rates);
      printTable(`webhooks: from a request's start to its message event in a subscriber's long-poll, ${about}`, latencies);
      console.log(`results: ${writeResult(options.quick ? 'webhooks-quick' : 'webhooks', { options, rates, latencies })}`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
