// A server with its realms on a thread of their own (PARLEY_THREADS=2), as clients see it: answers
// and errors as one thread gives them, events after their write's answer, the queues the I/O thread
// holds counted by the realms, messages rendered on the serving thread as the realm renders them,
// and the realm thread's measurements in the metrics. (The load tier runs its servers this way, the
// fault tier with an I/O thread besides.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../src/cli/processes.js';
import { loadConfig } from '../src/config.js';
import { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, StreamClient, type Event } from './helpers/events.js';
import { devClient, tempDataDir } from './helpers/operator.js';
import { postWebhook, webhookBot } from './helpers/webhooks.js';
import { upload } from './helpers/files.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';

let server: ServerProcess;
let metricsPort: number;
let iago: ApiClient;
let hamlet: ApiClient;

test.before(async () => {
  metricsPort = await freePort();
  server = await spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-threads-'), PARLEY_MODE: 'development', PARLEY_THREADS: '2', PARLEY_METRICS_PORT: String(metricsPort) });
  iago = await devClient(server.baseUrl, 'iago@zulip.com');
  hamlet = await devClient(server.baseUrl, 'hamlet@zulip.com');
});

test.after(async () => {
  server.child.kill('SIGTERM');
  assert.is(await server.exited, 0);
});

const eventsNow = async (client: ApiClient, queueId: string): Promise<Event[]> => {
  const response = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body.events as Event[];
};

test("a write's events are in the queues once its answer is: the sender's own with its local ID", async () => {
  const sending = await register(hamlet, { event_types: ['message'] });
  const reading = await register(iago, { event_types: ['message'] });
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'threads', content: 'across threads', queue_id: sending.queueId, local_id: '7.01' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const [mine] = await eventsNow(hamlet, sending.queueId);
  const [theirs] = await eventsNow(iago, reading.queueId);
  assert.is((mine!.message as { id: number }).id, sent.body.id);
  assert.is(mine!.local_message_id, '7.01');
  assert.is((theirs!.message as { id: number }).id, sent.body.id);
  assert.not.ok('local_message_id' in theirs!);
});

test("a burst of writes larger than a batch: each answer comes after its events, which keep the realm's order", async () => {
  const sending = await register(hamlet, { event_types: ['message'] });
  const ids = await Promise.all(
    Array.from({ length: 40 }, async (_, n) => {
      const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'burst', content: `burst ${n}` });
      assert.is(sent.status, 200, JSON.stringify(sent.body));
      const queued = (await eventsNow(hamlet, sending.queueId)).map((event) => (event.message as { id: number }).id);
      assert.ok(queued.includes(sent.body.id as number), `message ${String(sent.body.id)} was answered before its event was queued`);
      return sent.body.id as number;
    }),
  );
  const queued = (await eventsNow(hamlet, sending.queueId)).map((event) => (event.message as { id: number }).id);
  assert.equal(queued, [...ids].sort((a, b) => a - b));
});

test('register + events == a fresh register, the events crossing from the realm thread', async () => {
  const othello = await devClient(server.baseUrl, 'othello@zulip.com');
  const options = { client_gravatar: false, include_subscribers: true };
  const registered = await register(hamlet, options);
  const ids = { hamlet: (await hamlet.get('/users/me')).body.user_id, othello: (await othello.get('/users/me')).body.user_id };
  const ok = async (request: Promise<{ status: number; body: unknown }>) => {
    const response = await request;
    assert.is(response.status, 200, JSON.stringify(response.body));
  };
  await ok(iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Threads sequence' }], principals: [ids.hamlet, ids.othello] }));
  await Promise.all([
    ok(othello.post('/messages', { type: 'stream', to: 'Threads sequence', topic: 'hello', content: 'first @**King Hamlet**' })),
    ok(othello.post('/messages', { type: 'private', to: [ids.hamlet], content: 'direct' })),
    ok(othello.patch('/settings', { full_name: 'Othello of Venice' })),
    ok(iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Threads private' }], invite_only: true, principals: [ids.hamlet] })),
  ]);
  const received = await eventsNow(hamlet, registered.queueId);
  assert.ok(received.length >= 5, `got ${received.length} events`);
  for (const event of received) applyEvent(registered.state, event);
  assert.equal(comparable(registered.state), comparable((await register(hamlet, options)).state));
});

test("marking messages unread: the event's message_details crosses from the realm thread as the details, not the object that held their text", async () => {
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'details', content: 'read, then unread' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assert.is((await iago.post('/messages/flags', { op: 'add', flag: 'read', messages: JSON.stringify([sent.body.id]) })).status, 200);
  const { queueId } = await register(iago, { event_types: ['update_message_flags'] });
  assert.is((await iago.post('/messages/flags', { op: 'remove', flag: 'read', messages: JSON.stringify([sent.body.id]) })).status, 200);
  const [event] = await eventsNow(iago, queueId);
  const verona = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.equal(event!.message_details, { [String(sent.body.id)]: { type: 'stream', stream_id: verona, topic: 'details' } });
  assertEventMatchesReference(event as { type: string; id: number });
});

test("refusals keep Zulip's shape, and bad credentials are refused", async () => {
  const refused = await iago.post('/messages', { type: 'stream', to: 'No such channel', topic: 't', content: 'x' });
  assert.is(refused.status, 400);
  assert.equal(refused.body, { result: 'error', msg: "Channel 'No such channel' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'No such channel' });
  const wrongKey = await new ApiClient(server.baseUrl, { email: 'iago@zulip.com', apiKey: 'wrong' }).get('/users/me');
  assert.is(wrongKey.status, 401);
  assert.equal([wrongKey.body.result, wrongKey.body.code], ['error', 'INVALID_API_KEY']);
});

test('a window of messages and messages by ID come from the realm thread as JSON, as one thread answers them', async () => {
  const content = 'the window, **encoded** where the realm runs';
  const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'fields', content });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'fields' }];
  const window = await hamlet.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow, apply_markdown: false, unknown_parameter: 1 });
  assert.is(window.status, 200, JSON.stringify(window.body));
  assertMatchesReference('GET /messages', window.body);
  assert.equal((window.body.messages as { id: number; content: string }[]).map((message) => [message.id, message.content]), [[sent.body.id, content]]);
  assert.equal(window.body.ignored_parameters_unsupported, ['unknown_parameter']);
  const byId = await hamlet.get('/messages', { message_ids: [sent.body.id] });
  assert.is(byId.status, 200, JSON.stringify(byId.body));
  assertMatchesReference('GET /messages', byId.body);
  assert.is((byId.body.messages as { content: string }[])[0]!.content, '<p>the window, <strong>encoded</strong> where the realm runs</p>');
  const refused = await hamlet.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'nonsense', operand: 'x' }] });
  assert.is(refused.status, 400);
  assert.match(String(refused.body.msg), /^Invalid narrow operator/);
});

test('a window longer than V8 makes into one string cheaply crosses from the realm thread whole, in pieces', async () => {
  const contents = Array.from({ length: 16 }, (_, n) => `${n}: ${'grüße ✓ '.repeat(1_100)}`);
  const ids: number[] = [];
  for (const content of contents) {
    const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'long window', content });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    ids.push(Number(sent.body.id));
  }
  const narrow = [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'long window' }];
  const window = await hamlet.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow, apply_markdown: false });
  assert.is(window.status, 200, JSON.stringify(window.body).slice(0, 300));
  assertMatchesReference('GET /messages', window.body);
  assert.equal((window.body.messages as { id: number; content: string }[]).map((message) => [message.id, message.content]), ids.map((id, n) => [id, contents[n]]));
});

test("an all_public_streams queue gets a public channel's messages its user does not subscribe to", async () => {
  const created = await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'threads only iago' }] });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const everything = await register(hamlet, { event_types: ['message'], all_public_streams: true });
  const sent = await iago.post('/messages', { type: 'stream', to: 'threads only iago', topic: 't', content: 'public' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const events = await eventsNow(hamlet, everything.queueId);
  assert.equal(
    events.map((event) => (event.message as { id: number }).id),
    [sent.body.id],
  );
});

test('the event WebSocket gets what the realm thread emits', async () => {
  const { queueId } = await register(hamlet, { event_types: ['message'] });
  const stream = await StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, hamlet.authHeader());
  try {
    stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
    const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'socket', content: 'over the socket' });
    await stream.until((client) => client.events().some((event) => (event.message as { id: number } | undefined)?.id === sent.body.id));
  } finally {
    stream.socket.close();
  }
});

const metric = async (pattern: RegExp): Promise<number> => Number(pattern.exec(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())?.[1] ?? 0);

const renderedOff = (): Promise<number> => metric(/parley_message_renders_total\{on="worker"\} (\d+)/);

/** Waits for the count of renderings made off the realm's thread (relayed to the serving thread's
 * metrics within a second) to reach `count`. */
async function renderedOffAtLeast(count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await renderedOff()) < count) {
    if (Date.now() > deadline) assert.unreachable(`rendered off the realm's thread: ${await renderedOff()}, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("messages render on the serving thread with the realm's names, a rename included, as the realm would", async () => {
  const before = await renderedOff();
  const hamletId = (await hamlet.get('/users/me')).body.user_id as number;
  const rendered = async (content: string): Promise<string> => {
    const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'rendering', content });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    return ((await iago.get(`/messages/${sent.body.id}`)).body.message as { content: string }).content;
  };
  // The first message asks for a copy of the context (the realm renders it); the next use it.
  for (let round = 0; round < 3; round++) assert.match(await rendered(`@**King Hamlet** round ${round}`), `data-user-id="${hamletId}"`);
  assert.is((await hamlet.patch('/settings', { full_name: 'Prince Hamlet' })).status, 200);
  for (let round = 0; round < 3; round++) {
    const html = await rendered(`@**Prince Hamlet** and @**King Hamlet** ${round}`);
    // The new name mentions him; the old one no longer does.
    assert.match(html, `data-user-id="${hamletId}">@Prince Hamlet</span>`);
    assert.is(html.split(`data-user-id="${hamletId}"`).length, 2, html);
  }
  await renderedOffAtLeast(before + 4);
  // Content worth a render worker goes there (the pool starts its workers on first use: the realm
  // renders until one is ready) with the version of the serving thread's copy: the realm is not
  // asked for it first, and keeps the rendering. Relayed in order: once the rendering is counted,
  // so is a render.version it took.
  const versionAsked = (): Promise<number> => metric(/parley_command_duration_seconds_count\{command="render\.version",outcome="ok"\} (\d+)/);
  const [askedBefore, offBefore] = [await versionAsked(), await renderedOff()];
  for (let round = 0; (await renderedOff()) === offBefore; round++) {
    if (round === 20) assert.unreachable('no rendering on a render worker');
    const html = await rendered(`\`\`\`\ncode ${round}\n\`\`\`\n@**Prince Hamlet**`);
    assert.match(html, `<div class="codehilite"><pre><span></span><code>code ${round}\n</code></pre></div>`);
    assert.match(html, `data-user-id="${hamletId}">@Prince Hamlet</span>`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.is(await versionAsked(), askedBefore, 'render.version asked of the realm thread');
});

test("messages and edits rendered on the serving thread are found by their words, as the realm's own are", async () => {
  const before = await renderedOff();
  const ids: number[] = [];
  // Until one is rendered here (the first after a change of names is the realm's; the count is
  // relayed within a second).
  while ((await renderedOff()) === before) {
    if (ids.length === 20) assert.unreachable('no rendering on the serving thread');
    const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'indexing', content: `quokkas graze ${ids.length}` });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    ids.push(Number(sent.body.id));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const found = async (word: string): Promise<number[]> => {
    const narrow = JSON.stringify([{ operator: 'channel', operand: 'Verona' }, { operator: 'search', operand: word }]);
    return ((await iago.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow })).body.messages as { id: number }[]).map((message) => message.id);
  };
  assert.equal(await found('quokka'), ids);
  assert.equal(await found('grazing'), ids);
  assert.equal(await found(`quokkas ${ids.length - 1}`), [ids.at(-1)]);
  assert.equal(await found('wombat'), []);
  // An edit's new content, rendered here too: found by its new words, no longer by the old.
  const [first, ...rest] = ids;
  assert.is((await iago.patch(`/messages/${first}`, { content: 'wombats roam' })).status, 200);
  assert.equal(await found('wombat'), [first]);
  assert.equal(await found('quokka'), rest);
});

test('credentials kept on the serving thread stop working once a change to them is answered', async () => {
  const cordelia = await devClient(server.baseUrl, 'cordelia@zulip.com');
  const cordeliaId = (await cordelia.get('/users/me')).body.user_id as number;
  // Known to the serving thread now; then replaced.
  assert.is((await cordelia.get('/users/me')).status, 200);
  const regenerated = await cordelia.post('/users/me/api_key/regenerate', {});
  assert.is(regenerated.status, 200, JSON.stringify(regenerated.body));
  assert.is((await cordelia.get('/users/me')).status, 401);
  const renewed = new ApiClient(server.baseUrl, { email: 'cordelia@zulip.com', apiKey: String(regenerated.body.api_key) });
  assert.is((await renewed.get('/users/me')).status, 200);
  // Deactivated: refused at once, though the same header was accepted a moment before.
  assert.is((await iago.delete(`/users/${cordeliaId}`)).status, 200);
  const refused = await renewed.get('/users/me');
  assert.is(refused.status, 401);
  assert.is(refused.body.code, 'USER_DEACTIVATED');
  assert.is((await iago.post(`/users/${cordeliaId}/reactivate`)).status, 200);
  assert.is((await renewed.get('/users/me')).status, 200);
});

test("an incoming webhook's key works on the serving thread until the bot's key is regenerated", async () => {
  const bot = await webhookBot(iago);
  const call = { body: JSON.stringify({ build: 1 }), query: { stream: 'Verona', topic: 'threads hook' } };
  for (let round = 0; round < 2; round++) assert.is((await postWebhook(server, 'json', bot, call)).status, 200);
  const regenerated = await iago.post(`/bots/${bot.id}/api_key/regenerate`, {});
  assert.is(regenerated.status, 200, JSON.stringify(regenerated.body));
  const refused = await postWebhook(server, 'json', bot, call);
  assert.is(refused.status, 401);
  assert.is(refused.body.code, 'INVALID_API_KEY');
  assert.is((await postWebhook(server, 'json', { apiKey: String(regenerated.body.api_key) }, call)).status, 200);
});

test('a thread count below one stops the start with a clear message', () => {
  assert.throws(() => loadConfig({ PARLEY_THREADS: '0' }), /PARLEY_THREADS must be an integer of at least 1, got '0'/);
  assert.throws(() => loadConfig({ PARLEY_THREADS: 'two' }), /PARLEY_THREADS must be an integer of at least 1, got 'two'/);
  assert.is(loadConfig({}).threads, 1);
});

/** The credentials the realm thread has checked (relayed to the serving thread's metrics every
 * quarter of a second, so read once more than that has passed). */
async function credentialChecks(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return metric(/parley_command_duration_seconds_count\{command="auth\.basic",outcome="ok"\} (\d+)/);
}

test('credentials stay kept on the serving thread across uploads, the messages that claim them and changes to subscriptions, and are checked again after a change to users', async () => {
  assert.is((await hamlet.get('/users/me')).status, 200);
  const before = await credentialChecks();
  const uploaded = await upload(hamlet, [{ name: 'kept.txt', type: 'text/plain', bytes: 'a file' }]);
  assert.is(uploaded.status, 200);
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'uploads', content: `[kept.txt](${String(uploaded.body.url)})` });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const claimed = ((await hamlet.get('/attachments')).body.attachments as { path_id: string; messages: unknown[] }[]).find((attachment) => String(uploaded.body.url).endsWith(attachment.path_id));
  assert.is(claimed?.messages.length, 1, 'the message claimed the file');
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const recolored = await hamlet.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: verona, property: 'color', value: '#a6c7e5' }]) });
  assert.is(recolored.status, 200, JSON.stringify(recolored.body));
  assert.is((await hamlet.get('/users/me')).status, 200);
  assert.is(await credentialChecks(), before, 'no credentials checked again after an upload, its message and a subscription changed');
  assert.is((await iago.post('/users/me/status', { status_text: 'checking' })).status, 200);
  assert.is((await hamlet.get('/users/me')).status, 200);
  assert.ok((await credentialChecks()) > before, 'checked again once a user changed');
});

test("the metrics count the realm thread's commands, the realms it runs and the JSON it keeps of them", async () => {
  await iago.get('/users/me');
  // Register keeps the users' entries as JSON.
  assert.is((await iago.post('/register', { event_types: ['message'] })).status, 200);
  const deadline = Date.now() + 5000;
  for (;;) {
    const commands = await metric(/parley_command_duration_seconds_count\{command="users\.me",outcome="ok"\} (\d+)/);
    const realms = await metric(/^parley_realms_loaded (\d+)/m);
    const keptJson = await metric(/^parley_kept_json_bytes (\d+)/m);
    if (commands > 0 && realms === 1 && keptJson > 0) return;
    if (Date.now() > deadline) assert.unreachable(`commands ${commands}, realms loaded ${realms}, kept JSON bytes ${keptJson}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

test.run();
