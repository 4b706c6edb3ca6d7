// The request pipeline as a client sees it: routing errors, body formats, parameter handling,
// size limits and aborted requests.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest, type RawRequest } from './helpers/client.js';
import { assertMatchesReference, specUserFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const http = suite<{ server: TestServer }>('http pipeline');

http.before(async (context) => {
  context.server = await startTestServer({ maxBodyBytes: 4096 });
});
http.after(async ({ server }) => server.stop());

http('an unknown path is a 404 JSON error', async ({ server }) => {
  for (const path of ['/api/v1/no/such/endpoint', '/not-the-api']) {
    const response = await rawRequest(server.baseUrl, { method: 'GET', path });
    assert.is(response.status, 404);
    assert.equal(response.body, { result: 'error', msg: 'Endpoint not found', code: 'NOT_FOUND' });
  }
});

http('GET /health and /ready answer the operator without credentials, outside /api/v1', async ({ server }) => {
  for (const path of ['/health', '/ready']) {
    const response = await rawRequest(server.baseUrl, { method: 'GET', path });
    assert.equal([response.status, response.body], [200, { result: 'success', msg: '' }], path);
    assert.not.ok('x-ratelimit-remaining' in response.headers, `${path} is not rate limited`);
  }
});

http('a known path with another method is a 405 JSON error naming the allowed methods', async ({ server }) => {
  const response = await rawRequest(server.baseUrl, { method: 'PUT', path: '/api/v1/users/me' });
  assert.is(response.status, 405);
  assert.is(response.body.code, 'METHOD_NOT_ALLOWED');
  assert.is(response.headers.allow, 'GET, DELETE');
});

http('a multipart/form-data body is read like a urlencoded one', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const form = new FormData();
  form.append('client_gravatar', 'false');
  form.append('unknown_thing', '1');
  const encoded = new Response(form);
  const response = await rawRequest(server.baseUrl, {
    method: 'POST',
    path: '/api/v1/users/me/api_key/regenerate',
    headers: { ...iago.authHeader(), 'Content-Type': encoded.headers.get('content-type')! },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  assert.is(response.status, 200);
  assert.equal(response.body.ignored_parameters_unsupported, ['client_gravatar', 'unknown_thing']);
  assert.type(response.body.api_key, 'string');
});

http('parameters are read from the query string and from form, multipart and JSON bodies alike', async ({ server }) => {
  const form = new Response(new URLSearchParams({ username: 'cordelia@zulip.com' }));
  const multipart = new FormData();
  multipart.append('username', 'cordelia@zulip.com');
  const multipartBody = new Response(multipart);
  const requests: Omit<RawRequest, 'method'>[] = [
    { path: '/api/v1/dev_fetch_api_key?username=cordelia%40zulip.com', headers: {}, body: '' },
    { path: '/api/v1/dev_fetch_api_key', headers: { 'Content-Type': form.headers.get('content-type')! }, body: Buffer.from(await form.arrayBuffer()) },
    {
      path: '/api/v1/dev_fetch_api_key',
      headers: { 'Content-Type': multipartBody.headers.get('content-type')! },
      body: Buffer.from(await multipartBody.arrayBuffer()),
    },
    { path: '/api/v1/dev_fetch_api_key', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'cordelia@zulip.com' }) },
    // The body wins over the query string, as in Zulip.
    { path: '/api/v1/dev_fetch_api_key?username=iago%40zulip.com', headers: { 'Content-Type': 'application/json' }, body: '{"username":"cordelia@zulip.com"}' },
  ];
  for (const request of requests) {
    const response = await rawRequest(server.baseUrl, { method: 'POST', ...request });
    assert.is(response.status, 200, JSON.stringify(response.body));
    assert.is(response.body.email, 'cordelia@zulip.com');
  }
});

http('GET /users/me returns the requester as the spec\'s User object', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/users/me');
  assert.is(response.status, 200);
  assertMatchesReference('GET /users/me', response.body, specUserFields);
  assert.is(response.body.full_name, 'King Hamlet');
  assert.is(response.body.delivery_email, 'hamlet@zulip.com');
  assert.is(response.body.is_active, true);
  assert.is(response.body.role, 400);
  // Zulip ignores client_gravatar for the requester's own avatar, and names bot fields only on bots.
  assert.match(String(response.body.avatar_url), /^https:\/\/secure\.gravatar\.com\/avatar\//);
  assert.not.ok('bot_type' in response.body || 'bot_owner_id' in response.body);
  const sent = Number((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'me', content: 'newest' })).body.id);
  assert.is((await hamlet.get('/users/me')).body.max_message_id, sent);
  // The newest message gone, the one before it is the newest again.
  const before = Number((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'me', content: 'older' })).body.id);
  const newest = Number((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'me', content: 'newer' })).body.id);
  assert.is((await hamlet.get('/users/me')).body.max_message_id, newest);
  assert.is((await (await server.as('desdemona@zulip.com')).delete(`/messages/${newest}`)).status, 200);
  assert.is((await hamlet.get('/users/me')).body.max_message_id, before);
});

http('unsupported parameters are listed in ignored_parameters_unsupported', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/users', { frobnicate: 1, client_gravatar: true });
  assert.is(response.status, 200);
  assert.equal(response.body.ignored_parameters_unsupported, ['frobnicate']);
  const clean = await hamlet.get('/users', { client_gravatar: true });
  assert.not.ok('ignored_parameters_unsupported' in clean.body);
});

http('long answers, one after another and many at once, each come whole (written through one kept buffer)', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const topic = 'long answers';
  for (let n = 0; n < 80; n++) {
    const sent = await hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic, content: `long answer ${n}: ${'ünïcødé words ✓ '.repeat(60)}` });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
  }
  const window = (client: typeof hamlet, apply_markdown: boolean, extra: Record<string, unknown> = {}) =>
    client.get('/messages', { anchor: 'newest', num_before: 80, num_after: 0, narrow: [{ operator: 'channel', operand: 'Denmark' }, { operator: 'topic', operand: topic }], apply_markdown, ...extra });
  const answers = await Promise.all([window(hamlet, true), window(othello, false), window(hamlet, false, { frobnicate: 1 }), window(othello, true), hamlet.post('/register', {})]);
  for (const [index, answer] of answers.slice(0, 4).entries()) {
    assert.is(answer.status, 200);
    assert.ok(Number(answer.headers['content-length']) > 60 * 1024, `answer ${index} is long: ${String(answer.headers['content-length'])} bytes, ${String(answer.headers['transfer-encoding'])}`);
    const messages = answer.body.messages as { content: string; content_type: string }[];
    assert.is(messages.length, 80);
    const type = index === 0 || index === 3 ? 'text/html' : 'text/x-markdown';
    assert.ok(messages.every((message) => message.content_type === type && message.content.includes('ünïcødé words ✓')), `answer ${index}: every message of its own variant`);
  }
  assert.equal(answers[2]!.body.ignored_parameters_unsupported, ['frobnicate'], 'the tail is written after the pieces');
  assert.is(answers[4]!.status, 200);
  assert.type(answers[4]!.body.queue_id, 'string');
});

http('a parameter of the wrong type is a 400 naming it, in Zulip wording', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/users', { client_gravatar: 'maybe' });
  assert.is(response.status, 400);
  assert.equal(response.body, { result: 'error', code: 'BAD_REQUEST', msg: 'client_gravatar is not a boolean' });
});

http('a missing required parameter is a 400 naming it', async ({ server }) => {
  const response = await server.anonymous.post('/dev_fetch_api_key', {});
  assert.is(response.status, 400);
  assert.equal(response.body, { result: 'error', code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'username' argument", var_name: 'username' });
});

http('a malformed JSON body is a 400', async ({ server }) => {
  const response = await rawRequest(server.baseUrl, {
    method: 'POST',
    path: '/api/v1/dev_fetch_api_key',
    headers: { 'Content-Type': 'application/json' },
    body: '{"username": ',
  });
  assert.is(response.status, 400);
  assert.is(response.body.code, 'BAD_REQUEST');
});

http('half a surrogate pair in JSON (a body, an encoded parameter) is kept as U+FFFD, as bytes that are not UTF-8 are', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const inBody = await rawRequest(server.baseUrl, {
    method: 'POST',
    path: '/api/v1/users/me/alert_words',
    headers: { ...othello.identity(), 'Content-Type': 'application/json' },
    body: '{"alert_words": ["x\\udfffy", "\\ud83d\\ude00 pair"]}',
  });
  assert.is(inBody.status, 200, JSON.stringify(inBody.body));
  assert.is((await othello.post('/users/me/alert_words', { alert_words: '["\\ud800z"]' })).status, 200);
  const words = (await othello.get('/users/me/alert_words')).body.alert_words as string[];
  for (const word of ['x\ufffdy', '\u{1f600} pair', '\ufffdz']) assert.ok(words.includes(word), `${JSON.stringify(word)} in ${JSON.stringify(words)}`);
});

http('a body over the configured limit is a 413 JSON error, declared or streamed', async ({ server }) => {
  const big = `username=${'x'.repeat(5000)}`;
  const declared = await rawRequest(server.baseUrl, {
    method: 'POST',
    path: '/api/v1/dev_fetch_api_key',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: big,
  });
  assert.is(declared.status, 413);
  assert.is(declared.body.code, 'REQUEST_ENTITY_TOO_LARGE');
  // Streamed without a declared length: the server answers once the limit is crossed and closes.
  const streamed = await socketExchange(server.parley.http.port, [
    'POST /api/v1/dev_fetch_api_key HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n',
    'Content-Type: application/x-www-form-urlencoded\r\n\r\n',
    `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
  ]);
  assert.match(streamed, /^HTTP\/1\.1 413 /);
  assert.match(streamed, /"code":"REQUEST_ENTITY_TOO_LARGE"/);
});

/** Writes raw bytes on a fresh connection and returns everything the server sends until it closes. */
function socketExchange(port: number, parts: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => parts.forEach((part) => socket.write(part)));
    socket.on('data', (data) => (received += data.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

http('a client that disconnects mid-body does not disturb the server', async ({ server }) => {
  const port = server.parley.http.port;
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /api/v1/dev_fetch_api_key HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\nusername=ia');
      socket.destroy();
      resolve();
    });
    socket.on('error', reject);
  });
  const after = await server.anonymous.get('/server_settings');
  assert.is(after.status, 200);
});

http.run();
