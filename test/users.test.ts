// Users through the API: reading them, bots, deactivation (with its bots, actions, events and the
// key that stops working) and reactivation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference, specUserFields } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, type TestServer } from './helpers/server.js';

const users = suite<{ server: TestServer }>('users');

users.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
users.after(async ({ server }) => server.stop());

let counter = 0;
type User = { user_id: number; email: string; full_name: string; is_active: boolean; is_bot: boolean; bot_type: number | null; bot_owner_id: number | null; is_deleted?: boolean };

async function newMember(server: TestServer): Promise<{ id: number; client: ApiClient }> {
  const iago = await server.as('iago@zulip.com');
  const email = `member${++counter}@zulip.com`;
  const created = await iago.post('/users', { email, full_name: `Member ${counter}`, password: 'secret-pw' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  return { id: Number(created.body.user_id), client: await server.as(email) };
}

const eventsOf = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];

users('GET /users lists every user as the spec User object', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/users', { client_gravatar: false });
  assertMatchesReference('GET /users', response.body, { ...specUserFields, at: ['members[]'] });
  const members = response.body.members as User[];
  assert.ok(members.some((user) => user.email === 'polonius@zulip.com'));
});

users('GET /users/{id} and /users/{email}: by real e-mail and by the dummy address; unknown is 400', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = (await hamlet.get('/users/othello@zulip.com')).body;
  assertMatchesReference('GET /users/{email}', othello, { ...specUserFields, at: ['user'] });
  const id = (othello.user as User).user_id;
  assert.equal((await hamlet.get(`/users/${id}`)).body.user, othello.user);
  assertMatchesReference('GET /users/{user_id}', (await hamlet.get(`/users/${id}`)).body, { ...specUserFields, at: ['user'] });
  assert.equal((await hamlet.get(`/users/user${id}@localhost`)).body.user, othello.user, 'the dummy form equals lookup by ID');
  assert.is((await hamlet.get('/users/nobody@zulip.com')).body.code, 'BAD_REQUEST');
  assert.is((await hamlet.get('/users/424242')).status, 400);
});

users('a user creates a bot; it is listed with its type and owner; guests may not create bots', async ({ server }) => {
  const { id, client } = await newMember(server);
  const created = await client.post('/bots', { full_name: 'Helper', short_name: `helper${counter}`, bot_type: 1 });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const bot = (await client.get(`/users/${created.body.user_id}`)).body.user as User;
  assert.equal([bot.is_bot, bot.bot_type, bot.bot_owner_id], [true, 1, id]);
  assert.match(bot.email, /-bot@localhost$/);
  const polonius = await server.as('polonius@zulip.com');
  assert.is((await polonius.post('/bots', { full_name: 'Nope', short_name: 'nope' })).status, 400);
  assert.is((await client.post('/bots', { full_name: 'Bad', short_name: 'b', bot_type: 9 })).status, 400);
});

users('deactivation: administrators only; never the only owner; an owner only by an owner', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const { id } = await newMember(server);
  const notAdmin = await hamlet.delete(`/users/${id}`);
  assert.equal([notAdmin.status, notAdmin.body.code], [400, 'UNAUTHORIZED_PRINCIPAL']);
  const ownerId = Number((await desdemona.get('/users/me')).body.user_id);
  const byAdmin = await iago.delete(`/users/${ownerId}`);
  assert.is(byAdmin.body.code, 'UNAUTHORIZED_PRINCIPAL');
  const onlyOwner = await desdemona.delete(`/users/${ownerId}`);
  assert.equal(onlyOwner.body, { result: 'error', code: 'BAD_REQUEST', msg: 'Cannot deactivate the only organization owner' });
  assert.is((await iago.delete('/users/424242')).body.code, 'BAD_REQUEST');
});

users('DELETE /users/me: a user leaves, their bots with them; the only owner may not', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { id, client } = await newMember(server);
  const bot = await client.post('/bots', { full_name: 'Leaves too', short_name: `leaves${counter}` });
  const left = await client.delete('/users/me');
  assertMatchesReference('DELETE /users/me', left.body);
  assert.equal([(await client.get('/users/me')).body.code], ['USER_DEACTIVATED']);
  for (const userId of [id, Number(bot.body.user_id)]) assert.is(((await iago.get(`/users/${userId}`)).body.user as User).is_active, false);
  const desdemona = await server.as('desdemona@zulip.com');
  const onlyOwner = await desdemona.delete('/users/me');
  assertMatchesReference('DELETE /users/me', onlyOwner.body, {}, 400);
  assert.equal(onlyOwner.body, { result: 'error', code: 'CANNOT_DEACTIVATE_LAST_USER', msg: 'Cannot deactivate the only organization owner', entity: 'organization owner', is_last_owner: true });
  assert.is((await desdemona.get('/users/me')).status, 200);
});

users("deactivating a user deactivates the user's bots first, ends the key and the queues at once", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const { id, client } = await newMember(server);
  const bot = await client.post('/bots', { full_name: 'Owned', short_name: `owned${counter}` });
  const ownQueue = await register(client);
  const watcher = await register(cordelia, { event_types: ['realm_user'] });
  const deactivated = await iago.delete(`/users/${id}`);
  assert.equal(deactivated.body, { result: 'success', msg: '' });
  const updates = (await eventsOf(cordelia, watcher.queueId)).filter((event) => event.op === 'update');
  assert.equal(
    updates.map((event) => event.person),
    [
      { user_id: bot.body.user_id, is_active: false },
      { user_id: id, is_active: false },
    ],
    "the bot's deactivation comes first",
  );
  for (const event of updates) assertEventMatchesReference(event);
  const rejected = await client.get('/users/me');
  assert.equal([rejected.status, rejected.body.code], [401, 'USER_DEACTIVATED']);
  const botEmail = ((await iago.get(`/users/${bot.body.user_id}`)).body.user as User).email;
  const botKey = client.withCredentials({ email: botEmail, apiKey: String(bot.body.api_key) });
  assert.is((await botKey.get('/users/me')).body.code, 'USER_DEACTIVATED');
  // The user's queue is gone, not merely unreachable.
  assert.throws(() => server.parley.queues.get(ownQueue.queueId, server.parley.realms.forHost('')!.realm.id, id), /Bad event queue ID/);
  assert.is(((await iago.get(`/users/${id}`)).body.user as User).is_active, false);
});

users('deactivation actions: delete_profile and the message deletions', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { id, client } = await newMember(server);
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Verona' }], principals: [id] });
  const sent = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'leaving', content: 'bye' });
  const kept = await client.post('/messages', { type: 'private', to: [Number((await hamlet.get('/users/me')).body.user_id)], content: 'keep me' });
  const watcher = await register(hamlet, { event_types: ['delete_message'] });
  const response = await iago.delete(`/users/${id}`, { actions: { delete_profile: true, delete_public_channel_messages: true } });
  assert.is(response.status, 200, JSON.stringify(response.body));
  const profile = (await iago.get(`/users/${id}`)).body.user as User;
  assert.equal([profile.full_name, profile.is_deleted, profile.is_active], [`Deleted User ${id}`, true, false]);
  assert.is((await hamlet.get(`/messages/${sent.body.id}`)).status, 400, 'the channel message is gone');
  assert.is((await hamlet.get(`/messages/${kept.body.id}`)).status, 200, 'direct messages were not asked for');
  const [deleted] = await eventsOf(hamlet, watcher.queueId);
  assert.equal([deleted!.message_ids, deleted!.message_type], [[sent.body.id], 'stream']);
  assertEventMatchesReference(deleted!);
});

users('reactivation brings the user and the key back; reactivating an active user is refused', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { id, client } = await newMember(server);
  assert.is((await iago.post(`/users/${id}/reactivate`)).body.code, 'BAD_REQUEST');
  await iago.delete(`/users/${id}`);
  assert.is((await client.get('/users/me')).status, 401);
  const hamlet = await server.as('hamlet@zulip.com');
  assert.is((await hamlet.post(`/users/${id}/reactivate`)).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.is((await iago.post(`/users/${id}/reactivate`)).status, 200);
  assert.is((await client.get('/users/me')).status, 200);
});

users('register + events == a fresh register across deactivation and reactivation', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const { id } = await newMember(server);
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Verona' }], principals: [id] });
  const options = { client_gravatar: false, include_subscribers: true };
  const before = await register(cordelia, options);
  await iago.delete(`/users/${id}`);
  const other = await newMember(server);
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Verona' }], principals: [other.id] });
  await iago.delete(`/users/${other.id}`, { actions: { delete_profile: true } });
  await iago.post(`/users/${id}/reactivate`);
  for (const event of await eventsOf(cordelia, before.queueId)) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, options)).state));
});

users('GET /users/me shows each change at once, and refuses a regenerated key and a deactivation at once', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { id, client } = await newMember(server);
  const me = async (asker: ApiClient = client) => {
    const response = await asker.get('/users/me');
    assert.is(response.status, 200, JSON.stringify(response.body));
    assertMatchesReference('GET /users/me', response.body, specUserFields);
    return response.body as User & { role: number; max_message_id: number; delivery_email: string; profile_data: Record<string, { value: string }> };
  };
  const first = await me();
  assert.equal([first.user_id, first.full_name, first.email], [id, `Member ${counter}`, client.email]);
  // Asked twice between changes, so an answer kept from before a change would show.
  await iago.patch(`/users/${id}`, { full_name: 'Renamed Member', role: 300 });
  for (const seen of [await me(), await me()]) assert.equal([seen.full_name, seen.role], ['Renamed Member', 300]);
  await client.patch('/settings', { email_address_visibility: 5 });
  for (const seen of [await me(), await me()]) assert.equal([seen.email, seen.delivery_email], [`user${id}@localhost`, client.email]);
  const field = await iago.post('/realm/profile_fields', { name: `Desk ${counter}`, field_type: 1 });
  await client.patch('/users/me/profile_data', { data: [{ id: field.body.id, value: 'B-12' }] });
  assert.equal((await me()).profile_data[String(field.body.id)], { value: 'B-12', rendered_value: '<p>B-12</p>' });
  const before = (await me()).max_message_id;
  const sent = await iago.post('/messages', { type: 'direct', to: JSON.stringify([id]), content: 'Hello' });
  assert.is((await me()).max_message_id, sent.body.id);
  assert.is((await iago.delete(`/messages/${sent.body.id}`)).status, 200);
  assert.is((await me()).max_message_id, before, 'a deleted message is no longer the newest');
  const regenerated = await client.post('/users/me/api_key/regenerate');
  const stale = await client.get('/users/me');
  assert.equal([stale.status, stale.body.code], [401, 'INVALID_API_KEY']);
  const renewed = client.withCredentials({ email: client.email, apiKey: String(regenerated.body.api_key) });
  assert.is((await me(renewed)).user_id, id);
  assert.is((await iago.delete(`/users/${id}`)).status, 200);
  const refused = await renewed.get('/users/me');
  assert.equal([refused.status, refused.body.code], [401, 'USER_DEACTIVATED']);
});

users('PATCH /users/{id}: administrators change names and roles; owners alone touch the owner role', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { id } = await newMember(server);
  const renamed = await iago.patch(`/users/${id}`, { full_name: '  Renamed  ' });
  assert.equal(renamed.body, { result: 'success', msg: '' });
  assert.is(((await iago.get(`/users/${id}`)).body.user as User).full_name, 'Renamed');
  assert.is((await iago.patch(`/users/${id}`, { role: 300 })).status, 200);
  assert.is(((await iago.get(`/users/${id}`)).body.user as { role: number }).role, 300);
  assert.is((await iago.patch(`/users/${id}`, { role: 100 })).body.code, 'UNAUTHORIZED_PRINCIPAL', 'only owners make owners');
  assert.is((await hamlet.patch(`/users/${id}`, { full_name: 'Nope' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.match(String((await iago.patch(`/users/${id}`, { role: 250 })).body.msg), /Invalid role/);
  assert.match(String((await iago.patch(`/users/${id}`, { full_name: '   ' })).body.msg), /Name too short/);
  const ownerId = Number((await desdemona.get('/users/me')).body.user_id);
  const lastOwner = await desdemona.patch(`/users/${ownerId}`, { role: 200 });
  assert.equal(lastOwner.body.msg, 'The owner permission cannot be removed from the only organization owner.');
  assert.is((await desdemona.patch(`/users/${id}`, { role: 100 })).status, 200, 'an owner makes another owner');
  assert.is((await desdemona.patch(`/users/${ownerId}`, { role: 200 })).status, 200, 'now there is another owner');
});

users('register + events == a fresh register across name and role changes', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const { id } = await newMember(server);
  const before = await register(cordelia, { client_gravatar: false });
  await iago.patch(`/users/${id}`, { full_name: 'New Name', role: 600 });
  await iago.patch(`/users/${id}`, { role: 300 });
  const events = await eventsOf(cordelia, before.queueId);
  for (const event of events.filter((candidate) => candidate.type === 'realm_user')) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { client_gravatar: false })).state));
});

users('user endpoints require valid credentials and their role', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/users'],
    ['GET', '/users/1'],
    ['GET', '/users/iago@zulip.com'],
    ['DELETE', '/users/1'],
    ['PATCH', '/users/1'],
    ['POST', '/users/1/reactivate'],
    ['POST', '/bots'],
    ['POST', '/users'],
    ['GET', '/users/me'],
    ['DELETE', '/users/me'],
    ['POST', '/users/me/api_key/regenerate'],
  ]);
  const hamlet = await server.as('hamlet@zulip.com');
  assert.is((await hamlet.post('/users', { email: 'x@zulip.com', full_name: 'X', password: 'secret-pw' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
});

users.run();
