// What an operator sees: one JSON log line per request (by route pattern, without credentials or
// the query string), per event socket opened and closed; Prometheus metrics on a port of their own
// that count what clients did.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config.js';
import type { StatusSnapshot } from '../src/ops/metrics.js';
import { rawRequest } from './helpers/client.js';
import { register, StreamClient } from './helpers/events.js';
import { capturedLog } from './helpers/logs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const ops = suite<{ server: TestServer; lines: LogLine[] }>('logs and metrics');

ops.before(async (context) => {
  const { log, lines } = capturedLog<LogLine>('info');
  context.lines = lines;
  context.server = await startTestServer({ log, metricsListen: { host: '127.0.0.1', port: 0 } });
});
ops.after(async ({ server }) => server.stop());

/** The log lines a condition picks, once there are some (the logger writes asynchronously). */
async function logged(lines: LogLine[], pick: (line: LogLine) => boolean): Promise<LogLine[]> {
  for (let tries = 0; tries < 100; tries++) {
    const picked = lines.filter(pick);
    if (picked.length > 0) return picked;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [];
}

async function scrape(server: TestServer): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${server.parley.metricsPort}/metrics`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  return response.text();
}

/** A sample's value in Prometheus's text format (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((label) => have.includes(label))) return Number(match[3]);
  }
  return 0;
}

ops('a request is logged once, by route pattern, with realm, user, status, time and size, and no secret', async ({ server, lines }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/4?include_custom_profile_fields=true&secret=do-not-log', headers: hamlet.identity() });
  assert.is(response.status, 200);
  const [line, ...more] = await logged(lines, (entry) => entry.msg === 'request' && entry.route === '/api/v1/users/{user_id:int}');
  assert.ok(line, 'the request is logged');
  assert.is(more.length, 0, 'once');
  assert.equal({ method: line.method, status: line.status, realm: line.realm, user: line.user }, { method: 'GET', status: 200, realm: server.parley.realms.forHost('')!.realm.id, user: (await hamlet.get('/users/me')).body.user_id });
  assert.ok(typeof line.ms === 'number' && line.ms >= 0);
  assert.ok(typeof line.bytes === 'number' && line.bytes > 100);
  assert.ok(typeof line.time === 'number');
  const everything = JSON.stringify(lines);
  assert.not.match(everything, 'do-not-log', 'never the query string');
  assert.not.match(everything, hamlet.credentials!.apiKey, 'never the API key');
  assert.not.match(everything, /Basic /, 'never the credentials');
});

ops('requests that match no route, or fail authentication, are logged with their status', async ({ server, lines }) => {
  assert.is((await rawRequest(server.baseUrl, { method: 'GET', path: '/no/such/path' })).status, 404);
  assert.is((await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/me', headers: { Authorization: `Basic ${Buffer.from('hamlet@zulip.com:wrong').toString('base64')}` } })).status, 401);
  assert.ok((await logged(lines, (entry) => entry.msg === 'request' && entry.route === '(unrouted)' && entry.status === 404)).length > 0);
  const [refused] = await logged(lines, (entry) => entry.msg === 'request' && entry.route === '/api/v1/users/me' && entry.status === 401);
  assert.ok(refused, 'the refused request is logged');
  assert.is(refused.user, undefined, 'without a user');
});

ops('an event socket is logged when it opens and when it closes, with the close code', async ({ server, lines }) => {
  const othello = await server.as('othello@zulip.com');
  const userId = (await othello.get('/users/me')).body.user_id;
  const socket = await StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, othello.authHeader());
  assert.ok((await logged(lines, (entry) => entry.msg === 'socket open' && entry.user === userId)).length > 0);
  socket.socket.close(4000, 'bye');
  const [closed] = await logged(lines, (entry) => entry.msg === 'socket closed' && entry.user === userId);
  assert.ok(closed, 'the close is logged');
  assert.is(closed.code, 4000);
});

ops('GET /metrics counts requests by route and status, commands, commits, deliveries, queues and sockets', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const before = await scrape(server);
  const queue = await register(iago, { event_types: ['message'] });
  const socket = await StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, iago.authHeader());
  for (let index = 0; index < 3; index++) assert.is((await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'metrics', content: `m${index}` })).status, 200);
  assert.is((await iago.post('/messages', { type: 'stream', to: 'No such channel', topic: 'metrics', content: 'x' })).status, 400);
  const after = await scrape(server);
  socket.close();

  const sends = { method: 'POST', route: '/api/v1/messages' };
  const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
  assert.is(delta('parley_http_request_duration_seconds_count', { ...sends, status: '200' }), 3);
  assert.is(delta('parley_http_request_duration_seconds_count', { ...sends, status: '400' }), 1);
  assert.is(delta('parley_command_duration_seconds_count', { command: 'messages.send', outcome: 'ok' }), 3);
  assert.is(delta('parley_command_duration_seconds_count', { command: 'messages.send', outcome: 'error' }), 1);
  assert.ok(delta('parley_write_commit_seconds_count') >= 3, 'the sends were committed');
  assert.ok(delta('parley_events_delivered_total') >= 3, `each message reached the queue (${delta('parley_events_delivered_total')})`);
  assert.ok(sample(after, 'parley_event_queues') >= 1, 'the queue is counted');
  assert.is(sample(after, 'parley_websockets_open'), 1);
  assert.is(sample(after, 'parley_realms_loaded'), 1);
  assert.ok(sample(after, 'parley_store_bytes') > 0);
  assert.ok(sample(after, 'parley_kept_json_bytes') > 0, 'the JSON register kept of the realm is counted');
  assert.ok(sample(after, 'parley_process_resident_memory_bytes') > 0, "the process's own metrics");
  assert.ok(queue.queueId);
});

ops('the API port does not serve the metrics, nor the status page or its data', async ({ server }) => {
  for (const path of ['/metrics', '/status', '/status.json']) assert.is((await rawRequest(server.baseUrl, { method: 'GET', path })).status, 404, path);
});

/** The status page's data (GET /status.json on the metrics port). */
async function status(server: TestServer): Promise<StatusSnapshot> {
  const response = await fetch(`http://127.0.0.1:${server.parley.metricsPort}/status.json`);
  assert.is(response.status, 200);
  assert.is(response.headers.get('cache-control'), 'no-store');
  return (await response.json()) as StatusSnapshot;
}

const total = (buckets: { counts: number[] }) => buckets.counts[buckets.counts.length - 1]!;

ops('GET /status.json on the metrics port: realms with their users online, sockets, queues, deliveries, latency buckets, store size', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const before = await status(server);
  const queue = await register(cordelia, { event_types: ['message'] });
  const socket = await StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, cordelia.authHeader());
  socket.send({ op: 'attach', queue_id: queue.queueId, last_event_id: -1 });
  await socket.until((client) => client.frames.some((frame) => frame.control === 'attached'));
  for (let index = 0; index < 2; index++) assert.is((await cordelia.post('/messages', { type: 'stream', to: 'Verona', topic: 'status', content: `s${index}` })).status, 200);
  const after = await status(server);
  socket.close();

  assert.equal(after.nodes, null, 'standalone: no cluster nodes');
  const realm = server.parley.realms.forHost('')!.realm;
  const row = after.realms.find((entry) => entry.id === realm.id)!;
  assert.equal({ subdomain: row.subdomain, loaded: row.loaded }, { subdomain: realm.subdomain, loaded: true });
  assert.ok(row.usersOnline >= 1, 'the reading user is online');
  assert.is(after.openSockets, 1);
  assert.ok(after.eventQueues >= 1);
  assert.ok(after.eventsDelivered - before.eventsDelivered >= 2, 'the messages reached the queue');
  assert.ok(total(after.requests) - total(before.requests) >= 3, 'register and the sends are counted');
  assert.ok(total(after.commits) - total(before.commits) >= 2, 'the sends were committed');
  assert.is(after.requests.counts.length, after.requests.bounds.length + 1);
  assert.ok(after.storeBytes > 0);
  assert.ok(after.at >= before.at);
});

ops('GET /status on the metrics port is the status page, and its files are served beside it', async ({ server }) => {
  const base = `http://127.0.0.1:${server.parley.metricsPort}`;
  const page = await fetch(`${base}/status`);
  assert.is(page.status, 200);
  assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(page.headers.get('cache-control'), 'no-cache');
  const html = await page.text();
  const script = /src="\/static\/(status-[A-Z0-9]+\.js)"/.exec(html)?.[1];
  assert.ok(script, 'the page names its script');
  const file = await fetch(`${base}/static/${script}`);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.is((await fetch(`${base}/static/nothing-AAAAAAAA.js`)).status, 404);
});

ops('the Grafana dashboard (src/ops/dashboard.json) reads only metrics the server serves', async ({ server }) => {
  const dashboard = JSON.parse(readFileSync(new URL('../../src/ops/dashboard.json', import.meta.url), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
  const served = new Set((await scrape(server)).split('\n').map((line) => /^([a-z0-9_]+)/.exec(line)?.[1]).filter((name) => name !== undefined));
  const read = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/parley_[a-z0-9_]+/g) ?? []));
  assert.ok(read.length >= 10);
  assert.equal([...new Set(read)].filter((name) => !served.has(name)), [], 'metrics the dashboard reads that the server does not serve');
});

ops('a log level or format the server does not know stops the start with a clear message', () => {
  assert.throws(() => loadConfig({ PARLEY_LOG_LEVEL: 'verbose' }), /PARLEY_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'verbose'/);
  assert.throws(() => loadConfig({ PARLEY_LOG_FORMAT: 'xml' }), /PARLEY_LOG_FORMAT must be json or pretty, got 'xml'/);
  assert.throws(() => loadConfig({ PARLEY_METRICS_PORT: 'nine' }), /PARLEY_METRICS_PORT must be a non-negative integer/);
});

ops('a production server refuses the settings that trade durability or password strength for speed', () => {
  assert.throws(() => loadConfig({ PARLEY_MODE: 'production', PARLEY_STORE_SYNC: 'false' }), /PARLEY_STORE_SYNC=false is refused in production mode/);
  assert.throws(() => loadConfig({ PARLEY_MODE: 'production', PARLEY_PASSWORD_HASH_COST: '13' }), /PARLEY_PASSWORD_HASH_COST below 14 is refused in production mode/);
  assert.throws(() => loadConfig({ PARLEY_PASSWORD_HASH_COST: '3' }), /PARLEY_PASSWORD_HASH_COST must be between 4 and 17, got '3'/);
  const production = loadConfig({ PARLEY_MODE: 'production', PARLEY_PASSWORD_HASH_COST: '15' });
  assert.equal([production.storeSync, production.passwordHashCost, production.shutdownQuietMs], [true, 15, 50]);
  assert.equal([loadConfig({}).storeSync, loadConfig({}).passwordHashCost], [true, 14], 'the defaults');
});

ops.run();
