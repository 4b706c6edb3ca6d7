// Bots their owners manage, through HTTP: creating an outgoing-webhook bot with its service,
// changing its name, owner and service (PATCH /bots/{id}), a new key, deactivation; who may; the
// realm_bot events and register + events == a fresh register.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { postWebhook, webhookBot } from './helpers/webhooks.js';

const bots = suite<{ server: TestServer }>('bots');

bots.before(async (context) => {
  context.server = await startTestServer();
});
bots.after(async ({ server }) => server.stop());

type Bot = { user_id: number; full_name: string; owner_id: number; api_key: string; services: { base_url: string; interface: number; token: string }[] };

let created = 0;
async function outgoingBot(owner: ApiClient, url = 'https://bots.example.com/hook'): Promise<number> {
  const response = await owner.post('/bots', { full_name: `Echo ${++created}`, short_name: `echo${created}`, bot_type: 3, payload_url: JSON.stringify(url), interface_type: 1 });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.user_id);
}

const botsOf = async (client: ApiClient): Promise<Bot[]> => (await register(client, { fetch_event_types: ['realm_bot'] })).state.realm_bots as Bot[];

bots("an outgoing-webhook bot's service is in its owner's realm_bots, with a token of its own", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await outgoingBot(hamlet);
  const bot = (await botsOf(hamlet)).find((candidate) => candidate.user_id === id)!;
  assert.is(bot.services.length, 1);
  assert.is(bot.services[0]!.base_url, 'https://bots.example.com/hook');
  assert.is(bot.services[0]!.interface, 1);
  assert.match(bot.services[0]!.token, /^[A-Za-z0-9]{32}$/);
  assert.is.not(bot.services[0]!.token, bot.api_key);
});

bots('creating an outgoing-webhook bot needs a valid URL and a known interface; nothing is created otherwise', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const before = (await botsOf(hamlet)).length;
  const refusals: [Record<string, unknown>, number, string][] = [
    [{ bot_type: 3 }, 400, "Missing 'payload_url' argument"],
    [{ bot_type: 3, payload_url: JSON.stringify('ftp://example.com') }, 400, 'Enter a valid URL.'],
    [{ bot_type: 3, payload_url: 'not a url' }, 400, 'Enter a valid URL.'],
    [{ bot_type: 3, payload_url: JSON.stringify('https://example.com'), interface_type: 7 }, 400, 'Invalid interface type'],
  ];
  for (const [params, status, msg] of refusals) {
    const response = await hamlet.post('/bots', { full_name: 'Refused', short_name: `refused${++created}`, ...params });
    assert.equal([response.status, response.body.msg], [status, msg], JSON.stringify(params));
  }
  assert.is((await botsOf(hamlet)).length, before);
});

bots('PATCH /bots/{id} changes the name, the URL and the interface; each change is announced; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await outgoingBot(hamlet);
  const mine = await register(hamlet, { fetch_event_types: ['realm_bot'], event_types: ['realm_bot'] });
  const renamed = await hamlet.patch(`/bots/${id}`, { full_name: 'Echo renamed' });
  assert.is(renamed.status, 200, JSON.stringify(renamed.body));
  assert.is(renamed.body.full_name, 'Echo renamed');
  const moved = await hamlet.patch(`/bots/${id}`, { service_payload_url: JSON.stringify('https://elsewhere.example.com/bot'), service_interface: 2 });
  assert.equal([moved.status, moved.body.service_payload_url, moved.body.service_interface], [200, 'https://elsewhere.example.com/bot', 2]);
  const rekeyed = await hamlet.post(`/bots/${id}/api_key/regenerate`);
  assert.is(rekeyed.status, 200);
  const events = await pollEvents(hamlet, mine.queueId, 3);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal(events.map((event) => Object.keys(event.bot as object).sort()), [['full_name', 'user_id'], ['services', 'user_id'], ['api_key', 'user_id']]);
  for (const event of events) applyEvent(mine.state, event);
  assert.equal(comparable(mine.state), comparable((await register(hamlet, { fetch_event_types: ['realm_bot'] })).state));
  const bot = (await botsOf(hamlet)).find((candidate) => candidate.user_id === id)!;
  assert.equal([bot.api_key, bot.services[0]!.base_url, bot.services[0]!.interface], [rekeyed.body.api_key, 'https://elsewhere.example.com/bot', 2]);
});

bots('a new key replaces the old one at once', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const rekeyed = await hamlet.post(`/bots/${bot.id}/api_key/regenerate`);
  const old = await postWebhook(server, 'json', bot, { body: '{}', query: { stream: 'Verona' } });
  assert.equal([old.status, old.body.code], [401, 'INVALID_API_KEY']);
  const renewed = await postWebhook(server, 'json', { apiKey: String(rekeyed.body.api_key) }, { body: '{}', query: { stream: 'Verona' } });
  assert.is(renewed.status, 200);
});

bots('a new owner sees the bot and the previous one no longer does; both states equal a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const id = await outgoingBot(hamlet);
  const theirs = [await register(hamlet, { fetch_event_types: ['realm_bot', 'realm_user'], event_types: ['realm_bot'] }), await register(cordelia, { fetch_event_types: ['realm_bot'], event_types: ['realm_bot'] })] as const;
  const cordeliaId = Number((await cordelia.get('/users/me')).body.user_id);
  const changed = await hamlet.patch(`/bots/${id}`, { bot_owner_id: cordeliaId });
  assert.equal([changed.status, changed.body.bot_owner], [200, 'cordelia@zulip.com']);
  for (const [client, queue, op] of [[hamlet, theirs[0], 'delete'], [cordelia, theirs[1], 'add']] as const) {
    const [event] = await pollEvents(client, queue.queueId, 1);
    assert.is(event!.op, op);
    assertEventMatchesReference(event!);
    applyEvent(queue.state, event!);
    assert.equal(comparable({ realm_bots: queue.state.realm_bots }), comparable({ realm_bots: (await register(client, { fetch_event_types: ['realm_bot'] })).state.realm_bots }));
  }
  // Now Cordelia's to manage, not Hamlet's.
  assert.is((await hamlet.patch(`/bots/${id}`, { full_name: 'Not yours' })).body.msg, 'Insufficient permission');
  assert.is((await cordelia.patch(`/bots/${id}`, { full_name: 'Cordelia\'s' })).status, 200);
});

bots('owner changes are checked: no such user, a deactivated user, a bot', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await outgoingBot(hamlet);
  const other = await webhookBot(hamlet);
  for (const [ownerId, msg] of [[987654, 'Failed to change owner, no such user'], [other.id, "Failed to change owner, bots can't own other bots"]] as const) {
    const refused = await hamlet.patch(`/bots/${id}`, { bot_owner_id: ownerId });
    assert.equal([refused.status, refused.body.msg], [400, msg]);
  }
});

bots("only a bot's owner and administrators manage it; a user is no bot", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const bot = await webhookBot(hamlet);
  for (const [method, path] of [['PATCH', `/bots/${bot.id}`], ['DELETE', `/bots/${bot.id}`], ['POST', `/bots/${bot.id}/api_key/regenerate`]] as const) {
    const refused = await othello.call(method, path, method === 'PATCH' ? { full_name: 'Taken' } : {});
    assert.equal([refused.status, refused.body.msg], [400, 'Insufficient permission'], `${method} ${path}`);
  }
  const othelloId = Number((await othello.get('/users/me')).body.user_id);
  assert.equal((await iago.patch(`/bots/${othelloId}`, { full_name: 'x' })).body.msg, 'No such bot');
  assert.is((await iago.patch(`/bots/${bot.id}`, { full_name: 'Renamed by an administrator' })).status, 200);
});

bots('DELETE /bots/{id} deactivates the bot: its key no longer works and its owner is told', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const queue = await register(hamlet, { event_types: ['realm_bot'] });
  assert.is((await hamlet.delete(`/bots/${bot.id}`)).status, 200);
  const [event] = await pollEvents(hamlet, queue.queueId, 1);
  assert.equal([event!.op, (event!.bot as { user_id: number }).user_id], ['remove', bot.id]);
  const refused = await postWebhook(server, 'json', bot, { body: '{}', query: { stream: 'Verona' } });
  assert.equal([refused.status, refused.body.code], [401, 'USER_DEACTIVATED']);
  const again = await new ApiClient(server.baseUrl, { email: bot.email, apiKey: bot.apiKey }).post('/messages', { type: 'stream', to: 'Verona', topic: 't', content: 'x' });
  assert.is(again.status, 401);
});

bots("who may create bots follows the organization's can_create_bots_group and can_create_write_only_bots_group", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const groups = (await iago.get('/user_groups')).body.user_groups as { id: number; name: string }[];
  const admins = groups.find((group) => group.name === 'role:administrators')!.id;
  assert.is((await iago.patch('/realm', { can_create_bots_group: JSON.stringify({ new: admins }) })).status, 200);
  try {
    const generic = await othello.post('/bots', { full_name: 'Refused', short_name: `refused-generic${++created}`, bot_type: 1 });
    assert.equal([generic.status, generic.body.msg], [400, 'Insufficient permission']);
    const hook = await othello.post('/bots', { full_name: 'Allowed', short_name: `allowed-hook${++created}`, bot_type: 2 });
    assert.is(hook.status, 200, 'write-only bots are still open to members');
    assert.is((await iago.post('/bots', { full_name: 'Admin bot', short_name: `admin-bot${++created}`, bot_type: 1 })).status, 200);
  } finally {
    const members = groups.find((group) => group.name === 'role:members')!.id;
    assert.is((await iago.patch('/realm', { can_create_bots_group: JSON.stringify({ new: members }) })).status, 200);
  }
});

bots('the bot endpoints require credentials, and bots may not manage bots', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['PATCH', '/bots/1'],
    ['DELETE', '/bots/1'],
    ['POST', '/bots/1/api_key/regenerate'],
  ]);
  const hamlet = await server.as('hamlet@zulip.com');
  const generic = await webhookBot(hamlet, 1);
  const asBot = new ApiClient(server.baseUrl, { email: generic.email, apiKey: generic.apiKey });
  const refused = await asBot.patch(`/bots/${generic.id}`, { full_name: 'Self-made' });
  assert.equal([refused.status, refused.body.msg], [400, 'This endpoint does not accept bot requests.']);
});

bots.run();
