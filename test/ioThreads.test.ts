// A server with I/O threads (PARLEY_THREADS=3: the realm thread, and two threads serving clients on
// one port, the kernel spreading connections over them), as clients see it: every request opens a
// connection of its own here, so each lands on either thread, and the server still answers as one —
// a queue is read and deleted wherever its reader's connection lands, and a write is in every queue
// before its answer is; a long-poll abandoned or a socket closed lets go of its queue wherever that
// is; a WebSocket token or a rate limit is one server's, whichever thread issued or counted it, and
// so are a user's event queues and the bytes request bodies hold at once; the metrics count both
// threads' requests and queues; and the port is still the server's alone.
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../src/cli/processes.js';
import { frontOf, MAX_QUEUES_PER_USER } from '../src/events/queues.js';
import type { ApiClient } from './helpers/client.js';
import { rejects } from './helpers/assert.js';
import { register, StreamClient, type Event } from './helpers/events.js';
import { devClient, tempDataDir } from './helpers/operator.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';

let server: ServerProcess;
let metricsPort: number;
let hamlet: ApiClient;
let iago: ApiClient;

test.before(async () => {
  metricsPort = await freePort();
  server = await spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-io-'), PARLEY_MODE: 'development', PARLEY_THREADS: '3', PARLEY_METRICS_PORT: String(metricsPort) });
  [hamlet, iago] = await Promise.all([devClient(server.baseUrl, 'hamlet@zulip.com'), devClient(server.baseUrl, 'iago@zulip.com')]);
});

test.after(async () => {
  server.child.kill('SIGTERM');
  assert.is(await server.exited, 0);
});

const metric = async (pattern: RegExp): Promise<number> => Number(pattern.exec(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())?.[1] ?? 0);

/** Waits for a metric to read `expected` (the I/O thread reports within a second). */
async function metricReaches(pattern: RegExp, expected: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await metric(pattern)) !== expected) {
    if (Date.now() > deadline) assert.unreachable(`${pattern}: ${await metric(pattern)}, expected ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const messageIds = (events: Event[]): number[] => events.filter((event) => event.type === 'message').map((event) => (event.message as { id: number }).id);

test("connections to the one port land on both threads, and each queue is read, written to and deleted through whichever a request lands on", async () => {
  const queues = await Promise.all(Array.from({ length: 16 }, (_, n) => register(n % 2 === 0 ? hamlet : iago, { event_types: ['message'] })));
  const holders = new Set(queues.map(({ queueId }) => frontOf(queueId)));
  assert.equal([...holders].sort(), [0, 1], 'queues were opened on both threads');

  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'io threads', content: 'to every queue', queue_id: queues[0]!.queueId, local_id: '7.25' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  for (const [n, { queueId }] of queues.entries()) {
    const client = n % 2 === 0 ? hamlet : iago;
    // Read without waiting, right after the write's answer, on a connection that lands anywhere.
    const read = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    assert.is(read.status, 200, JSON.stringify(read.body));
    const events = read.body.events as Event[];
    assert.equal(messageIds(events), [sent.body.id], `queue ${queueId}`);
    assert.is(events[0]!.local_message_id, n === 0 ? '7.25' : undefined, `queue ${queueId}: the local ID goes to the queue the sender named`);
  }
  // Another user's queue is refused wherever the request lands.
  const intruding = await iago.get('/events', { queue_id: queues[0]!.queueId, last_event_id: -1, dont_block: true });
  assert.equal([intruding.status, intruding.body.code], [400, 'BAD_EVENT_QUEUE_ID']);
  for (const [n, { queueId }] of queues.entries()) assert.is((await (n % 2 === 0 ? hamlet : iago).delete('/events', { queue_id: queueId })).status, 200);
  for (const { queueId } of queues) assert.is((await hamlet.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
});

test('a WebSocket token issued through either thread opens the event socket through either, once', async () => {
  const { queueId } = await register(hamlet, { event_types: ['message'] });
  const socketUrl = (token: string) => `${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket?token=${encodeURIComponent(token)}`;
  // Each request and each socket opens a connection of its own: the token's thread and the
  // socket's are the same about half of the time.
  for (let n = 0; n < 8; n++) {
    const issued = await hamlet.post('/events/socket_token');
    assert.is(issued.status, 200, JSON.stringify(issued.body));
    const token = String(issued.body.token);
    const stream = await StreamClient.open(socketUrl(token));
    try {
      stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
      await stream.until((client) => client.frames.length >= 1);
      assert.is(stream.frames[0]!.control, 'attached', JSON.stringify(stream.frames[0]));
    } finally {
      stream.close();
    }
    for (let again = 0; again < 2; again++) await rejects(() => StreamClient.open(socketUrl(token)), /upgrade refused: 401/, 'a token works once, whichever thread it reaches');
  }
});

/** The users reading a queue now (a socket attached or a long-poll waiting), as the status page
 * counts them over both threads. */
async function usersOnline(): Promise<number> {
  const status = (await (await fetch(`http://127.0.0.1:${metricsPort}/status.json`)).json()) as { realms: { usersOnline: number }[] };
  return status.realms.reduce((total, realm) => total + realm.usersOnline, 0);
}

async function onlineReaches(expected: number, why: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await usersOnline()) !== expected) {
    if (Date.now() > deadline) assert.unreachable(`${why}: ${await usersOnline()} users online, expected ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a long-poll its client abandons lets go of the queue, whichever thread it landed on and whichever holds the queue', async () => {
  const prospero = await devClient(server.baseUrl, 'prospero@zulip.com');
  await onlineReaches(0, 'nobody reads a queue before');
  // The queue and the poll land on either thread: in half the rounds the poll is relayed to the
  // thread that holds the queue, which must stop waiting when the client goes.
  for (let round = 0; round < 4; round++) {
    const { queueId } = await register(prospero, { event_types: ['message'] });
    const client = new AbortController();
    const poll = fetch(`${server.baseUrl}/api/v1/events?queue_id=${queueId}&last_event_id=-1`, { headers: prospero.authHeader(), signal: client.signal }).catch(() => undefined);
    await onlineReaches(1, `round ${round}: the waiting poll makes its user online`);
    client.abort();
    await poll;
    await onlineReaches(0, `round ${round}: the abandoned poll no longer holds the queue`);
    assert.is((await prospero.delete('/events', { queue_id: queueId })).status, 200);
  }
});

test('an event socket that closes lets go of the queue, whichever thread it landed on and whichever holds the queue', async () => {
  const prospero = await devClient(server.baseUrl, 'prospero@zulip.com');
  await onlineReaches(0, 'nobody reads a queue before');
  for (let round = 0; round < 4; round++) {
    const { queueId } = await register(prospero, { event_types: ['message'] });
    const stream = await StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, prospero.authHeader());
    stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
    await stream.until((client) => client.frames.some((frame) => frame.control === 'attached'));
    await onlineReaches(1, `round ${round}: the attached socket makes its user online`);
    stream.close();
    await onlineReaches(0, `round ${round}: the closed socket no longer holds the queue`);
    assert.is((await prospero.delete('/events', { queue_id: queueId })).status, 200);
  }
});

test("a user's rate limit counts requests on both threads together", async () => {
  const limited = await spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-io-limits-'), PARLEY_MODE: 'development', PARLEY_THREADS: '3', PARLEY_RATE_LIMITS: 'true', PARLEY_RATE_LIMIT_USER: '12/600' });
  try {
    const othello = await devClient(limited.baseUrl, 'othello@zulip.com');
    const statuses = [];
    for (let n = 0; n < 20; n++) statuses.push((await othello.get('/users/me')).status);
    assert.equal(statuses, [...Array<number>(12).fill(200), ...Array<number>(8).fill(429)]);
  } finally {
    limited.child.kill('SIGTERM');
    assert.is(await limited.exited, 0);
  }
});

test("a user's event queues on both threads count against one limit", async () => {
  const cordelia = await devClient(server.baseUrl, 'cordelia@zulip.com');
  const opened = await Promise.all(Array.from({ length: MAX_QUEUES_PER_USER }, () => register(cordelia, { fetch_event_types: [] })));
  assert.equal(new Set(opened.map(({ queueId }) => frontOf(queueId))).size, 2, 'queues were opened on both threads');
  for (let attempt = 0; attempt < 4; attempt++) {
    const refused = await cordelia.post('/register', { fetch_event_types: [] });
    assert.equal([refused.status, refused.body.code], [400, 'BAD_REQUEST'], 'one more, wherever it lands');
  }
  assert.is((await cordelia.delete('/events', { queue_id: opened[0]!.queueId })).status, 200);
  const again = await register(cordelia, { fetch_event_types: [] });
  for (const { queueId } of [...opened.slice(1), again]) assert.is((await cordelia.delete('/events', { queue_id: queueId })).status, 200);
});

test('the bytes request bodies may hold at once are counted on both threads together', async () => {
  const busy = await spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-io-bodies-'), PARLEY_MODE: 'development', PARLEY_THREADS: '3', PARLEY_MAX_BUFFERED_BODY_BYTES: '1000000' });
  const sockets: Socket[] = [];
  try {
    const othello = await devClient(busy.baseUrl, 'othello@zulip.com');
    const { port } = new URL(busy.baseUrl);
    const head = [`POST /api/v1/messages HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Authorization: ${othello.authHeader().Authorization}`, 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: 400000', '', ''].join('\r\n');
    // Six requests, each on a connection of its own, declare 400,000-byte bodies and send none of
    // their bytes: two fit in the budget and wait for their bodies, the other four are turned away
    // at once, whichever thread each reached.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        new Promise<string>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
          sockets.push(socket);
          let text = '';
          socket.on('data', (data: Buffer) => {
            text += data.toString();
            if (text.includes('\r\n')) resolve(text.split('\r\n')[0]!);
          });
          setTimeout(() => resolve('still reading its body'), 1000);
        }),
      ),
    );
    assert.equal(answers.sort(), [...Array<string>(4).fill('HTTP/1.1 503 Service Unavailable'), 'still reading its body', 'still reading its body']);
  } finally {
    for (const socket of sockets) socket.destroy();
    busy.child.kill('SIGTERM');
    assert.is(await busy.exited, 0);
  }
});

test("the metrics count every thread's requests and queues", async () => {
  const requests = /parley_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/users\/me",status="200"\} (\d+)/;
  const before = await metric(requests);
  for (let n = 0; n < 12; n++) assert.is((await hamlet.get('/users/me')).status, 200);
  await metricReaches(requests, before + 12);

  const queues = /^parley_event_queues (\d+)/m;
  const held = await metric(queues);
  const opened = await Promise.all(Array.from({ length: 12 }, () => register(iago, { event_types: ['message'] })));
  assert.equal(new Set(opened.map(({ queueId }) => frontOf(queueId))).size, 2, 'queues were opened on both threads');
  await metricReaches(queues, held + 12);
  for (const { queueId } of opened) await iago.delete('/events', { queue_id: queueId });
  await metricReaches(queues, held);
});

test('a second server on the same port fails to start, with one thread or several, even while the first is starting', async () => {
  const port = new URL(server.baseUrl).port;
  for (const threads of ['1', '3']) {
    const second = spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-io-second-'), PARLEY_MODE: 'development', PARLEY_THREADS: threads, PARLEY_PORT: port });
    await second.then(
      (started) => {
        started.child.kill('SIGKILL');
        assert.unreachable(`a second server (PARLEY_THREADS=${threads}) started on port ${port}`);
      },
      (error: Error) => assert.match(error.message, 'in use', `PARLEY_THREADS=${threads}`),
    );
  }
  // Two started at once: the port is free for both at first, and its threads listen only once the
  // realms started.
  const shared = String(await freePort());
  const both = await Promise.allSettled([0, 1].map((n) => spawnServer({ PARLEY_DATA_DIR: tempDataDir(`parley-io-both-${n}-`), PARLEY_MODE: 'development', PARLEY_THREADS: '3', PARLEY_PORT: shared })));
  for (const outcome of both) if (outcome.status === 'fulfilled') outcome.value.child.kill('SIGTERM');
  assert.equal(both.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected']);
  const refused = both.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
  assert.match((refused.reason as Error).message, /in use/);
});

test.run();
