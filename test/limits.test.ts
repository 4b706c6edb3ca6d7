// The limits that keep one user, one address or one request from hurting everyone else: rate
// limits (429 with Zulip's headers), event queues per user, bounded lookups of long topics, alert
// word lists, bodies larger than allowed or than the server will hold at once, bots on human-only
// endpoints, and a port another server already has.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startParley } from '../src/app.js';
import { MAX_QUEUES_PER_USER } from '../src/events/queues.js';
import { MAX_ALERT_WORDS } from '../src/messages/alertWords.js';
import { assertMatchesComponent } from './helpers/reference.js';
import { startTestServer, testConfig } from './helpers/server.js';

const limits = suite('limits');

limits('each user has 200 requests a minute (here 5): then 429 RATE_LIMIT_HIT with Retry-After and X-RateLimit-*', async () => {
  const server = await startTestServer({ rateLimits: { enabled: true, user: { limit: 5, windowSeconds: 60 }, address: { limit: 100, windowSeconds: 60 }, realms: {} } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const othello = await server.as('othello@zulip.com');
    const { queue_id: queueId } = (await hamlet.post('/register', { event_types: ['message'] })).body;
    const remaining: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await hamlet.get('/users/me');
      assert.is(response.status, 200);
      remaining.push(String(response.headers['x-ratelimit-remaining']));
      assert.is(response.headers['x-ratelimit-limit'], '5');
      assert.ok(Number(response.headers['x-ratelimit-reset']) >= Math.floor(Date.now() / 1000));
    }
    assert.equal(remaining, ['3', '2', '1', '0']);
    const refused = await hamlet.get('/users/me');
    assert.is(refused.status, 429);
    assertMatchesComponent('RateLimitedError', refused.body);
    assert.equal([refused.body.code, refused.headers['x-ratelimit-remaining']], ['RATE_LIMIT_HIT', '0']);
    assert.ok(Number(refused.body['retry-after']) > 0 && Number(refused.body['retry-after']) <= 12);
    assert.is(refused.headers['retry-after'], String(Math.ceil(Number(refused.body['retry-after']))));
    assert.is((await othello.get('/users/me')).status, 200, 'another user has a bucket of their own');
    const poll = await hamlet.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    assert.is(poll.status, 200, 'the event long-poll is not counted');
  } finally {
    await server.stop();
  }
});

limits('failed authentication (and calls without credentials) are limited per address; valid keys from it still work', async () => {
  const server = await startTestServer({ rateLimits: { enabled: true, user: { limit: 200, windowSeconds: 60 }, address: { limit: 3, windowSeconds: 60 }, realms: { '': { limit: 1000, windowSeconds: 60 } } } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const wrong = hamlet.withCredentials({ email: 'hamlet@zulip.com', apiKey: 'guessed-key' });
    for (let i = 0; i < 3; i++) assert.is((await wrong.get('/users/me')).status, 401);
    const blocked = await wrong.get('/users/me');
    assert.equal([blocked.status, blocked.body.code], [429, 'RATE_LIMIT_HIT']);
    assert.is((await hamlet.get('/users/me')).status, 200, 'a valid key from the same address (a shared NAT) still works');
    assert.is((await server.anonymous.get('/server_settings')).status, 429, 'unauthenticated requests count per address too');
  } finally {
    await server.stop();
  }
});

limits('a realm may have its own per-user limit', async () => {
  const server = await startTestServer({ rateLimits: { enabled: true, user: { limit: 1, windowSeconds: 60 }, address: { limit: 100, windowSeconds: 60 }, realms: { '': { limit: 3, windowSeconds: 60 } } } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await hamlet.get('/users/me')).status);
    assert.equal(statuses, [200, 200, 200, 429]);
  } finally {
    await server.stop();
  }
});

const bounded = suite<{ server: Awaited<ReturnType<typeof startTestServer>> }>('bounded input');

bounded.before(async (context) => {
  context.server = await startTestServer();
});
bounded.after(async ({ server }) => server.stop());

bounded(`a user holds at most ${MAX_QUEUES_PER_USER} event queues; then a clear 400`, async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const ids: string[] = [];
  for (let i = 0; i < MAX_QUEUES_PER_USER; i++) {
    const response = await prospero.post('/register', { event_types: ['message'], fetch_event_types: [] });
    assert.is(response.status, 200);
    ids.push(String(response.body.queue_id));
  }
  const refused = await prospero.post('/register', { fetch_event_types: [] });
  assert.equal([refused.status, refused.body.msg], [400, `Too many event queues (limit: ${MAX_QUEUES_PER_USER}); delete unused ones with DELETE /events`]);
  assert.is((await prospero.delete('/events', { queue_id: ids[0] })).status, 200);
  assert.is((await prospero.post('/register', { fetch_event_types: [] })).status, 200, 'a deleted queue frees its place');
});

bounded('a topic longer than any stored one (2,000+ characters) matches nothing, for any user, guests included', async ({ server }) => {
  const polonius = await server.as('polonius@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const verona = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  for (const topic of ['x'.repeat(2500), 'é'.repeat(1500), '🦆'.repeat(600)]) {
    const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: topic }];
    const fetched = await polonius.get('/messages', { narrow, anchor: 'newest', num_before: 10, num_after: 0 });
    assert.equal([fetched.status, fetched.body.messages], [200, []]);
    const flagged = await polonius.post('/messages/flags/narrow', { narrow, anchor: 'oldest', num_before: 0, num_after: 100, op: 'add', flag: 'read' });
    assert.equal([flagged.status, flagged.body.updated_count], [200, 0]);
    const deleted = await iago.post(`/streams/${verona}/delete_topic`, { topic_name: topic });
    assert.equal([deleted.status, deleted.body.complete], [200, true]);
  }
  assert.is((await polonius.get('/users/me')).status, 200, 'the realm was not reloaded or broken');
});

bounded(`alert words: at most ${MAX_ALERT_WORDS} words of at most 100 characters; a refused change changes nothing`, async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const words = Array.from({ length: MAX_ALERT_WORDS }, (_, i) => `word${i}`);
  const added = await cordelia.post('/users/me/alert_words', { alert_words: [...words, 'WORD1', 'word1'] });
  assert.equal([added.status, (added.body.alert_words as string[]).length], [200, MAX_ALERT_WORDS], 'duplicates in any case count once');
  const tooMany = await cordelia.post('/users/me/alert_words', { alert_words: ['one more'] });
  assert.equal([tooMany.status, tooMany.body.msg], [400, `Too many alert words (limit: ${MAX_ALERT_WORDS})`]);
  const tooLong = await cordelia.post('/users/me/alert_words', { alert_words: ['ok', 'x'.repeat(101)] });
  assert.equal([tooLong.status, tooLong.body.msg], [400, 'alert_words[1] is too long (limit: 100 characters)']);
  assert.is(((await cordelia.get('/users/me/alert_words')).body.alert_words as string[]).length, MAX_ALERT_WORDS);
  // With a thousand words the one that matters is still found, as a whole word and in any case.
  const othello = await server.as('othello@zulip.com');
  const sent = await othello.post('/messages', { type: 'stream', to: 'Verona', topic: 'alerts', content: 'About WORD999, not word9999 or xword1.' });
  const flags = (await cordelia.get(`/messages/${sent.body.id}`)).body.message as { flags: string[] };
  assert.ok(flags.flags.includes('has_alert_word'));
  const miss = await othello.post('/messages', { type: 'stream', to: 'Verona', topic: 'alerts', content: 'Only word99999 and aword5 here.' });
  assert.not.ok(((await cordelia.get(`/messages/${miss.body.id}`)).body.message as { flags: string[] }).flags.includes('has_alert_word'));
});

bounded('bots are refused where Zulip accepts only people (creating bots, settings, profile data, push devices)', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const created = await hamlet.post('/bots', { full_name: 'Helper', short_name: 'helper' });
  const email = ((await hamlet.get(`/users/${created.body.user_id}`)).body.user as { email: string }).email;
  const bot = hamlet.withCredentials({ email, apiKey: String(created.body.api_key) });
  for (const [method, path, params] of [
    ['POST', '/bots', { full_name: 'Botception', short_name: 'inner' }],
    ['PATCH', '/settings', { enter_sends: true }],
    ['PATCH', '/users/me/profile_data', { data: [] }],
    ['POST', '/mobile_push/register', { token_kind: 'fcm', push_account_id: 1, push_public_key: 'x', bouncer_public_key: 'y', encrypted_push_registration: 'z' }],
  ] as const) {
    const refused = await bot.call(method, path, params);
    assert.equal([refused.status, refused.body.msg], [400, 'This endpoint does not accept bot requests.'], `${method} ${path}`);
  }
  assert.is((await bot.get('/users/me')).status, 200, 'a bot still uses the API');
  const members = (await hamlet.get('/users')).body.members as { full_name: string }[];
  assert.not.ok(members.some((user) => user.full_name === 'Botception'), 'the refused bot was not created');
});

limits.run();
bounded.run();

const bodies = suite('request bodies');

/** Sends a request's head and part of its body, keeping the connection open. */
function partialPost(port: number, path: string, length: number, first: string) {
  const socket = connect(port, '127.0.0.1');
  // The answer: one whole response (its Content-Length read), or what came before the close.
  const answer = new Promise<string>((resolve) => {
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString();
      const head = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data);
      if (head >= 0 && length && data.length >= head + 4 + Number(length[1])) resolve(data);
    });
    socket.on('close', () => resolve(data));
    socket.on('error', () => resolve(data));
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n${first}`);
  return { socket, answer };
}

bodies('a body over the limit is 413 and the connection closes; bodies over the shared budget wait for none: 503', async () => {
  const server = await startTestServer({ maxBodyBytes: 8000, maxBufferedBodyBytes: 10_000 });
  try {
    const port = server.parley.http.port;
    const tooLarge = partialPost(port, '/api/v1/fetch_api_key', 9000, 'a=1');
    const first = await tooLarge.answer;
    assert.match(first, /^HTTP\/1\.1 413/);
    assert.match(first, /REQUEST_ENTITY_TOO_LARGE/);
    // One slow 6,000-byte body holds the budget; a second one is refused instead of buffered.
    const slow = partialPost(port, '/api/v1/fetch_api_key', 6000, 'a=');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = partialPost(port, '/api/v1/fetch_api_key', 6000, 'b=');
    const refused = await second.answer;
    assert.match(refused, /^HTTP\/1\.1 503/);
    assert.match(refused, /SERVER_BUSY/);
    slow.socket.end('x'.repeat(5998));
    assert.match(await slow.answer, /^HTTP\/1\.1 400[^]*REQUEST_VARIABLE_MISSING/, 'the slow body was read whole and handled');
    const after = partialPost(port, '/api/v1/fetch_api_key', 6000, `c=${'y'.repeat(5998)}`);
    assert.match(await after.answer, /^HTTP\/1\.1 400[^]*REQUEST_VARIABLE_MISSING/, 'the budget is given back once a request is answered');
    for (const { socket } of [tooLarge, slow, second, after]) socket.destroy();
  } finally {
    await server.stop();
  }
});

bodies.run();

const process_ = suite('the server process');

process_('a second server on a port in use fails to start instead of sharing the port', async () => {
  const first = await startTestServer();
  try {
    const config = testConfig({ port: first.parley.http.port });
    let failure: unknown;
    await startParley(config).then(
      (parley) => parley.close(),
      (error: unknown) => (failure = error),
    );
    assert.match(String(failure), /cannot listen on 127\.0\.0\.1:\d+: the address is in use/);
  } finally {
    await first.stop();
  }
});

process_('shutdown: requests in flight are answered, new ones on open connections get 503, then every connection closes', async () => {
  // The production default's quiet time, which the test helpers set to none.
  const server = await startTestServer({ shutdownQuietMs: 50 });
  const hamlet = await server.as('hamlet@zulip.com');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string) =>
    new Promise<{ status: number; connection: string | undefined; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request(`${server.baseUrl}${path}`, { agent, headers: hamlet.authHeader() }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end();
    });
  assert.is((await get('/api/v1/users/me')).status, 200);
  // A request still sending its body when shutdown starts is in flight.
  const body = 'type=stream&to=Verona&topic=shutdown&content=sent%20while%20stopping';
  const slow = connect(server.parley.http.port, '127.0.0.1');
  let slowAnswer = '';
  const slowClosed = new Promise<void>((resolve) => slow.on('close', () => resolve()));
  slow.on('data', (chunk: Buffer) => (slowAnswer += chunk.toString()));
  await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
  const auth = hamlet.authHeader().Authorization!;
  slow.write(`POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
  // An idle connection, which no request will use.
  const idle = connect(server.parley.http.port, '127.0.0.1');
  const idleClosed = new Promise<void>((resolve) => idle.on('close', () => resolve()));
  await new Promise<void>((resolve) => idle.once('connect', () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const closing = server.stop();
  const late = await get('/api/v1/users/me');
  assert.equal([late.status, late.body.code, late.connection], [503, 'SERVER_SHUTTING_DOWN', 'close']);
  slow.write(body.slice(10));
  await closing;
  await slowClosed;
  await Promise.race([idleClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('the idle connection is still open')), 5000).unref())]);
  assert.match(slowAnswer, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(slowAnswer, /"result":"success"/);
  agent.destroy();
});

process_.run();
