// Incoming webhooks through HTTP: the bot's key in the URL (or HTTP Basic), the channel and topic
// of the URL or a direct message to the bot's owner, Zulip's event filters, the errors a service
// meets, and what an incoming-webhook bot's key may do elsewhere. Each integration's fixtures are
// tested in test/integrations/.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import schema from '../schemas/incoming-webhook.js';
import { integrations } from '../src/integrations/index.js';
import { ApiClient } from './helpers/client.js';
import { pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { postedBy, postFixture, postWebhook, webhookBot } from './helpers/webhooks.js';

const webhooks = suite<{ server: TestServer }>('incoming webhooks');

webhooks.before(async (context) => {
  context.server = await startTestServer();
});
webhooks.after(async ({ server }) => server.stop());

const body = JSON.stringify({ build: 42, status: 'passed' });

webhooks('a request with the bot key posts to the channel and topic of the URL, as the bot, once committed', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const bot = await webhookBot(hamlet);
  const queue = await register(othello, { event_types: ['message'] });
  const posted = await postFixture(server, othello, bot, 'json', { body, query: { topic: 'builds' } });
  assert.is(posted.topic, 'builds');
  assert.is(posted.content, '```json\n{\n  "build": 42,\n  "status": "passed"\n}\n```');
  assert.is(posted.client, 'ZulipJSONWebhook');
  const [event] = await pollEvents(othello, queue.queueId, 1);
  assert.is((event!.message as { id: number; sender_id: number }).id, posted.id);
  assert.is((event!.message as { sender_id: number }).sender_id, bot.id);
  assertEventMatchesReference(event!);
});

webhooks("the integration's own topic applies when the URL names none; a channel may be named by ID", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const veronaId = String((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const posted = await postFixture(server, hamlet, bot, 'json', { body, query: { stream: veronaId } });
  assert.is(posted.topic, 'JSON');
  assert.is(posted.type, 'stream');
});

webhooks("without a channel the message goes to the bot's owner, directly", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const response = await postWebhook(server, 'json', bot, { body });
  assert.equal(response.body, { result: 'success', msg: '' });
  const [posted] = await postedBy(hamlet, bot.id);
  assert.is(posted!.type, 'private');
  const fetched = await hamlet.get(`/messages/${posted!.id}`);
  assert.equal((fetched.body.message as { display_recipient: { id: number }[] }).display_recipient.map((user) => user.id).sort(), [bot.id, Number((await hamlet.get('/users/me')).body.user_id)].sort());
});

webhooks('HTTP Basic credentials serve as well as the URL key', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const basic = new ApiClient(server.baseUrl, { email: bot.email, apiKey: bot.apiKey });
  const response = await postWebhook(server, 'json', undefined, { body, query: { stream: 'Verona' }, headers: basic.authHeader() });
  assert.equal(response.body, { result: 'success', msg: '' });
  assert.is((await postedBy(hamlet, bot.id)).length, 1);
});

webhooks("the URL's key wins over a service's own Authorization header", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const response = await postWebhook(server, 'json', bot, { body, query: { stream: 'Verona' }, headers: { Authorization: 'Bearer the-service-own-token' } });
  assert.equal(response.body, { result: 'success', msg: '' });
  assert.is((await postedBy(hamlet, bot.id)).length, 1);
});

webhooks('a missing or wrong key is 401 and a deactivated bot is refused; nothing is posted', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const missing = await postWebhook(server, 'json', undefined, { body, query: { stream: 'Verona' } });
  assert.is(missing.status, 401);
  assertMatchesComponent('CodedError', missing.body);
  const wrong = await postWebhook(server, 'json', { apiKey: 'x'.repeat(32) }, { body, query: { stream: 'Verona' } });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.code, 'INVALID_API_KEY');
  assert.is((await hamlet.delete(`/bots/${bot.id}`)).status, 200);
  const deactivated = await postWebhook(server, 'json', bot, { body, query: { stream: 'Verona' } });
  assert.equal([deactivated.status, deactivated.body.code], [401, 'USER_DEACTIVATED']);
  assert.equal(await postedBy(hamlet, bot.id), []);
});

webhooks('an unknown integration is a 404 in Zulip\'s shape; a body that is not JSON is a 400; neither posts', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const unknown = await postWebhook(server, 'no-such-service', bot, { body, query: { stream: 'Verona' } });
  assert.is(unknown.status, 404);
  assertMatchesComponent('CodedError', unknown.body);
  for (const bad of ['not json', '{"build": 4', '']) {
    const refused = await postWebhook(server, 'json', bot, { body: bad, query: { stream: 'Verona' } });
    assert.is(refused.status, 400, bad);
    assert.is(refused.body.msg, 'Malformed JSON');
  }
  assert.equal(await postedBy(hamlet, bot.id), []);
});

webhooks('only_events and exclude_events filter by event type with shell patterns', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const cases: [Record<string, string>, boolean][] = [
    [{ only_events: '["push"]' }, false],
    [{ only_events: '["j*"]' }, true],
    [{ exclude_events: '["json"]' }, false],
    [{ exclude_events: '["push", "pull_*"]' }, true],
    [{ only_events: '["j?on"]' }, true],
    [{ only_events: '["[ij]son"]' }, true],
    [{ only_events: '["[!j]son"]' }, false],
    [{ exclude_events: '["*s*n"]' }, false],
    // What a backtracking pattern engine would spend minutes on (extended globs are no fnmatch).
    [{ only_events: '["*(*)*(*)*(*)*(*)*(*)*(*)*(*)*(*)x"]' }, false],
  ];
  let count = 0;
  for (const [filters, posts] of cases) {
    const response = await postWebhook(server, 'json', bot, { body, query: { stream: 'Verona', ...filters } });
    assert.equal(response.body, { result: 'success', msg: '' });
    if (posts) count++;
    assert.is((await postedBy(hamlet, bot.id, 10)).length, count, JSON.stringify(filters));
  }
});

webhooks("a channel that does not exist: the request succeeds, and the owner is told (at most once a minute)", async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const bot = await webhookBot(cordelia);
  const queue = await register(cordelia, { event_types: ['message'] });
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await postWebhook(server, 'json', bot, { body, query: { stream: 'no such channel' } });
    assert.equal(response.body, { result: 'success', msg: '' });
  }
  assert.equal(await postedBy(cordelia, bot.id), []);
  const [notice, ...more] = await pollEvents(cordelia, queue.queueId, 1);
  const message = notice!.message as { content: string; type: string; sender_email: string };
  assert.is(message.type, 'private');
  assert.match(message.content, /tried to send a message to channel/);
  assert.match(message.content, /no such channel/);
  assert.equal(more, []);
  const again = await cordelia.get('/events', { queue_id: queue.queueId, last_event_id: notice!.id, dont_block: true });
  assert.equal(again.body.events, []);
});

webhooks('an incoming-webhook bot may send messages but reach nothing else with its key', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const client = new ApiClient(server.baseUrl, { email: bot.email, apiKey: bot.apiKey });
  const sent = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'by hand', content: 'hello' });
  assert.is(sent.status, 200);
  assertMatchesReference('POST /messages', sent.body);
  for (const [method, path] of [['GET', '/messages'], ['GET', '/users/me'], ['POST', '/register'], ['GET', '/streams']] as const) {
    const refused = await client.call(method, path, method === 'GET' && path === '/messages' ? { anchor: 'newest', num_before: 1, num_after: 0 } : {});
    assert.is(refused.status, 400, `${method} ${path}`);
    assert.is(refused.body.msg, 'This API is not available to incoming webhook bots.');
  }
  // A generic bot's key is not limited so.
  const generic = await webhookBot(hamlet, 1);
  const own = await new ApiClient(server.baseUrl, { email: generic.email, apiKey: generic.apiKey }).get('/users/me');
  assert.is(own.status, 200);
});

webhooks("register's realm_incoming_webhook_bots lists every integration with its event types and URL options", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const listed = (await hamlet.post('/register', { fetch_event_types: ['realm_incoming_webhook_bots'] })).body.realm_incoming_webhook_bots as { name: string; all_event_types: string[] | null; url_options: { key: string }[] }[];
  assert.equal(listed.map((entry) => entry.name).sort(), [...integrations.keys()].sort());
  for (const entry of listed) {
    assertMatchesComponent('register_queue_200_response_allOf_realm_incoming_webhook_bots_inner', entry);
    const integration = integrations.get(entry.name)!;
    const events = Object.keys(integration.events);
    assert.equal(entry.all_event_types, events.length > 1 ? events : null, entry.name);
    assert.equal(entry.url_options.map((option) => option.key), [...(integration.params ?? [])], entry.name);
  }
});

webhooks('every URL parameter an integration reads is in the webhook schema', () => {
  for (const integration of integrations.values()) {
    for (const name of integration.params ?? []) assert.ok(name in schema.properties, `${integration.name}: ${name}`);
  }
});

webhooks.run();
