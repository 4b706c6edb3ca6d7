// Channels and subscriptions through the API: subscribing (and creating), permissions, the channel
// list, and the events each change announces to exactly those who may see it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const channels = suite<{ server: TestServer }>('channels and subscriptions');

channels.before(async (context) => {
  context.server = await startTestServer({ heartbeatSeconds: 1 });
});
channels.after(async ({ server }) => server.stop());

let counter = 0;
const fresh = (prefix: string): string => `${prefix} ${++counter}`;

async function userId(client: ApiClient): Promise<number> {
  return Number((await client.get('/users/me')).body.user_id);
}

async function systemGroupId(server: TestServer, name: string): Promise<number> {
  const response = await (await server.as('iago@zulip.com')).get('/user_groups');
  assertMatchesReference('GET /user_groups', response.body);
  const group = (response.body.user_groups as { id: number; name: string }[]).find((candidate) => candidate.name === name);
  if (!group) throw new Error(`no group ${name}`);
  return group.id;
}

const dontBlock = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];

channels('subscribing to a new name creates the channel; the response lists who was subscribed', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const name = fresh('Elsinore');
  const response = await iago.post('/users/me/subscriptions', { subscriptions: [{ name, description: 'A *castle*' }], principals: ['hamlet@zulip.com'] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /users/me/subscriptions', response.body);
  const hamlet = await server.as('hamlet@zulip.com');
  assert.equal(response.body.subscribed, { [String(await userId(hamlet))]: [name] });
  assert.equal(response.body.already_subscribed, {});
  const again = await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await userId(hamlet)] });
  assert.equal(again.body.already_subscribed, { [String(await userId(hamlet))]: [name] });
  const id = Number((await hamlet.get('/get_stream_id', { stream: name })).body.stream_id);
  const channel = await hamlet.get(`/streams/${id}`);
  assertMatchesReference('GET /streams/{stream_id}', channel.body);
  const stream = channel.body.stream as Record<string, unknown>;
  assert.is(stream.rendered_description, '<p>A <em>castle</em></p>');
  assert.is(stream.topics_policy, 'inherit');
  assert.is(stream.subscriber_count, 1);
  assert.is(stream.creator_id, await userId(iago));
  assert.equal((await hamlet.get(`/streams/${id}/members`)).body.subscribers, [await userId(hamlet)]);
});

channels('creating a public channel tells everyone; subscribing tells the subscriber and the peers', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const queues = await Promise.all([hamlet, cordelia, polonius].map((client) => register(client)));
  const name = fresh('Agora');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await userId(hamlet)] });
  const [hamletEvents, cordeliaEvents, poloniusEvents] = await Promise.all(
    [hamlet, cordelia, polonius].map((client, i) => dontBlock(client, queues[i]!.queueId)),
  );
  assert.equal(hamletEvents!.map((event) => `${event.type}/${event.op}`), ['stream/create', 'subscription/add']);
  assert.equal(cordeliaEvents!.map((event) => `${event.type}/${event.op}`), ['stream/create', 'subscription/peer_add']);
  assert.equal(poloniusEvents, [], 'a guest cannot see a public channel it is not in');
  for (const event of [...hamletEvents!, ...cordeliaEvents!]) assertEventMatchesReference(event);
  assert.equal(cordeliaEvents![1]!.user_ids, [await userId(hamlet)]);
});

channels("a private channel's events reach only its subscribers and administrators", async ({ server }) => {
  const desdemona = await server.as('desdemona@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const [iagoQueue, hamletQueue, othelloQueue] = await Promise.all([iago, hamlet, othello].map((client) => register(client)));
  const secret = fresh('Secret');
  await desdemona.post('/users/me/subscriptions', { subscriptions: [{ name: secret }], invite_only: true, principals: [await userId(desdemona), await userId(hamlet)] });
  assert.equal((await dontBlock(othello, othelloQueue!.queueId)).map((event) => event.type), []);
  assert.equal((await dontBlock(hamlet, hamletQueue!.queueId)).map((event) => `${event.type}/${event.op}`), ['stream/create', 'subscription/add']);
  assert.equal((await dontBlock(iago, iagoQueue!.queueId)).map((event) => `${event.type}/${event.op}`), ['stream/create', 'subscription/peer_add']);
  const list = await othello.get('/streams', { include_all: true });
  assert.not.ok((list.body.streams as { name: string }[]).some((channel) => channel.name === secret), 'include_all shows a member no private channel');
});

channels('a member in can_add_subscribers_group adds others to a private channel without being in it (level 349)', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const members = await systemGroupId(server, 'role:members');
  const name = fresh('Guarded');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], invite_only: true, can_add_subscribers_group: members });
  const added = await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await userId(cordelia)] });
  assert.is(added.status, 200, JSON.stringify(added.body));
  assert.equal(added.body.subscribed, { [String(await userId(cordelia))]: [name] });
  const closed = fresh('Closed');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: closed }], invite_only: true });
  const refused = await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name: closed }], principals: [await userId(cordelia)] });
  assert.is(refused.status, 400);
  assert.is(refused.body.code, 'BAD_REQUEST');
  assert.match(String(refused.body.msg), /Unable to access channel/);
});

channels('authorization_errors_fatal=false lists refused channels under unauthorized with status 200', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const closed = fresh('Vault');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: closed }], invite_only: true });
  const open = fresh('Square');
  const response = await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name: closed }, { name: open }], authorization_errors_fatal: false });
  assert.is(response.status, 200);
  assert.equal(response.body.unauthorized, [closed]);
  assert.equal(response.body.subscribed, { [String(await userId(hamlet))]: [open] });
  assertMatchesReference('POST /users/me/subscriptions', response.body);
});

channels('an unknown or deactivated principal is 400 BAD_REQUEST (level 208), and nothing changes', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const name = fresh('Nowhere');
  for (const principals of [[999_999], ['ghost@zulip.com']]) {
    const response = await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals });
    assert.is(response.status, 400);
    assert.is(response.body.code, 'BAD_REQUEST');
  }
  assert.is((await iago.get('/get_stream_id', { stream: name })).status, 400, 'the channel was not created');
});

channels('channel names and descriptions are checked against the limits', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  for (const [subscriptions, pattern] of [
    [[{ name: '   ' }], /can't be empty/],
    [[{ name: 'x'.repeat(61) }], /too long \(limit: 60/],
    [[{ name: fresh('Long'), description: 'd'.repeat(1025) }], /description too long/],
  ] as const) {
    const response = await iago.post('/users/me/subscriptions', { subscriptions });
    assert.is(response.status, 400);
    assert.match(String(response.body.msg), pattern);
  }
  assert.is((await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'y'.repeat(60) }] })).status, 200);
});

channels('guests cannot create channels or join public ones; web-public needs the server setting', async ({ server }) => {
  const polonius = await server.as('polonius@zulip.com');
  assert.is((await polonius.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Guest made') }] })).status, 400);
  assert.is((await polonius.post('/users/me/subscriptions', { subscriptions: [{ name: 'Denmark' }] })).status, 400);
  const desdemona = await server.as('desdemona@zulip.com');
  const webPublic = await desdemona.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Open web') }], is_web_public: true });
  assert.is(webPublic.status, 400);
  assert.match(String(webPublic.body.msg), /Web-public channels are not enabled/);
});

channels('message_retention_days other than realm_default needs an owner', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  assert.is((await iago.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Kept') }], message_retention_days: 30 })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  const name = fresh('Forever');
  assert.is((await desdemona.post('/users/me/subscriptions', { subscriptions: [{ name }], message_retention_days: 'unlimited' })).status, 200);
  const id = (await desdemona.get('/get_stream_id', { stream: name })).body.stream_id;
  assert.is(((await desdemona.get(`/streams/${id}`)).body.stream as { message_retention_days: number }).message_retention_days, -1);
  assert.is((await desdemona.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Bad') }], message_retention_days: 'forever' })).status, 400);
});

channels('GET /streams follows its parameters and defaults', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const names = async (client: ApiClient, params: Record<string, unknown> = {}) => {
    const response = await client.get('/streams', params);
    assert.is(response.status, 200, JSON.stringify(response.body));
    assertMatchesReference('GET /streams', response.body);
    return (response.body.streams as { name: string }[]).map((channel) => channel.name);
  };
  const byDefault = await names(hamlet);
  assert.ok(byDefault.includes('Scotland'), 'public channels are included by default');
  assert.not.ok(byDefault.includes('core team'), 'private channels the user is not in are not');
  assert.not.ok((await names(hamlet, { include_public: false })).includes('Scotland'));
  assert.ok((await names(hamlet, { include_public: false })).includes('Verona'), 'subscribed channels');
  assert.equal(await names(hamlet, { include_public: false, include_subscribed: false }), []);
  assert.ok((await names(iago, { include_all: true })).includes('core team'), 'administrators see every channel with include_all');
  assert.ok((await names(hamlet, { include_public: false, include_subscribed: false, include_default: true })).includes('Denmark'));
  assert.is((await hamlet.get('/streams', { include_all_active: true })).status, 400, 'include_all_active needs an administrator');
  assert.ok((await names(iago, { include_all_active: true })).includes('core team'));
});

channels('a private channel is invisible to non-members by ID and by name', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const id = (await iago.get('/get_stream_id', { stream: 'core team' })).body.stream_id;
  assert.is((await hamlet.get(`/streams/${id}`)).status, 400);
  assert.is((await hamlet.get('/get_stream_id', { stream: 'core team' })).status, 400);
  assert.is((await hamlet.get(`/streams/${id}/members`)).status, 400);
  assert.is((await hamlet.get('/streams/987654')).status, 400);
});

channels('GET /users/me/subscriptions lists the subscriptions, with subscribers when asked', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/users/me/subscriptions', { include_subscribers: true });
  assertMatchesReference('GET /users/me/subscriptions', response.body);
  const verona = (response.body.subscriptions as { name: string; subscribers: number[]; in_home_view: boolean; is_muted: boolean }[]).find((sub) => sub.name === 'Verona')!;
  assert.ok(verona.subscribers.includes(await userId(hamlet)));
  assert.is(verona.in_home_view, !verona.is_muted);
});

channels('unsubscribing: self, others with the right to remove, and what the response lists', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const name = fresh('Leaving');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await userId(hamlet), await userId(cordelia)] });
  const self = await hamlet.delete('/users/me/subscriptions', { subscriptions: [name, 'Scotland'] });
  assertMatchesReference('DELETE /users/me/subscriptions', self.body);
  assert.equal([self.body.removed, self.body.not_removed], [[name], ['Scotland']]);
  assert.is((await hamlet.delete('/users/me/subscriptions', { subscriptions: [name], principals: [await userId(cordelia)] })).status, 400, 'a member may not remove others');
  const byAdmin = await iago.delete('/users/me/subscriptions', { subscriptions: [name], principals: [await userId(cordelia)] });
  assert.equal(byAdmin.body.removed, [name]);
  assert.equal((await iago.delete('/users/me/subscriptions', { subscriptions: ['Atlantis'] })).body.msg, "Channel 'Atlantis' does not exist");
});

channels('leaving a private channel takes it out of view; register + events == a fresh register', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const options = { client_gravatar: false, include_subscribers: true };
  const secret = fresh('Hideout');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: secret }], invite_only: true, principals: [await userId(iago), await userId(othello), await userId(cordelia)] });
  const open = fresh('Plaza');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: open }], principals: [await userId(othello), await userId(cordelia)] });
  const before = await register(othello, options);
  const peer = await register(cordelia, options);
  await othello.delete('/users/me/subscriptions', { subscriptions: [secret, open] });
  const events = await dontBlock(othello, before.queueId);
  assert.equal(events.map((event) => `${event.type}/${event.op}`), ['subscription/remove', 'stream/delete', 'subscription/remove']);
  for (const event of events) assertEventMatchesReference(event);
  for (const [client, registered] of [
    [othello, before],
    [cordelia, peer],
  ] as const) {
    for (const event of await dontBlock(client, registered.queueId)) applyEvent(registered.state, event);
    assert.equal(comparable(registered.state), comparable((await register(client, options)).state), client.email);
  }
});

channels('default channels: administrators add and remove them; new users join them', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const name = fresh('Lobby');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }] });
  const id = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
  assert.is((await hamlet.post('/default_streams', { stream_id: id })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  const added = await iago.post('/default_streams', { stream_id: id });
  assertMatchesReference('POST /default_streams', added.body);
  assert.match(String((await iago.post('/default_streams', { stream_id: id })).body.msg), /already a default/);
  const created = await iago.post('/users', { email: `newcomer${counter}@zulip.com`, full_name: 'Newcomer', password: 'secret-pw' });
  assert.ok(((await iago.get(`/streams/${id}/members`)).body.subscribers as number[]).includes(Number(created.body.user_id)));
  const removed = await iago.delete('/default_streams', { stream_id: id });
  assertMatchesReference('DELETE /default_streams', removed.body);
  assert.match(String((await iago.delete('/default_streams', { stream_id: id })).body.msg), /not a default/);
  const privateName = fresh('Back room');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: privateName }], invite_only: true });
  const privateId = Number((await iago.get('/get_stream_id', { stream: privateName })).body.stream_id);
  assert.match(String((await iago.post('/default_streams', { stream_id: privateId })).body.msg), /Private channels cannot be made default/);
});

channels('announce: the notification bot tells the announcements channel about a new public channel', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const name = fresh('Announced');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], announce: true });
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Quiet') }], announce: false });
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: fresh('Secret announced') }], announce: true, invite_only: true });
  const response = await hamlet.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false, narrow: [['channel', 'Verona'], ['topic', 'new channels']] });
  const messages = response.body.messages as { content: string; sender_full_name: string }[];
  assert.equal(messages.map((message) => [message.sender_full_name, message.content]), [['Notification Bot', `@_**Iago|${await userId(iago)}** created a new channel #**${name}**.`]]);
  const register = await hamlet.post('/register', { fetch_event_types: ['realm'] });
  assert.is(register.body.realm_new_stream_announcements_stream_id, Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id));
});

channels('PATCH /users/me/subscriptions joins and leaves at once; a refusal changes nothing', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const joined = fresh('Joined');
  assert.is((await cordelia.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: fresh('Left') }]) })).status, 200);
  const left = fresh('Leaving');
  await cordelia.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: left }]) });
  const both = await cordelia.patch('/users/me/subscriptions', { add: JSON.stringify([{ name: joined, description: 'New' }, { name: 'Verona' }]), delete: JSON.stringify([left]) });
  assertMatchesReference('PATCH /users/me/subscriptions', both.body);
  const me = String(await userId(cordelia));
  assert.equal([both.body.subscribed, both.body.already_subscribed, both.body.removed, both.body.not_removed], [{ [me]: [joined] }, { [me]: ['Verona'] }, [left], []]);
  const names = async () => ((await cordelia.get('/users/me/subscriptions')).body.subscriptions as { name: string }[]).map((sub) => sub.name);
  assert.ok((await names()).includes(joined) && !(await names()).includes(left));
  const before = await names();
  const refused = await cordelia.patch('/users/me/subscriptions', { add: JSON.stringify([{ name: fresh('Never') }]), delete: JSON.stringify(['No such channel']) });
  assert.equal([refused.status, refused.body.msg], [400, "Channel 'No such channel' does not exist"]);
  assert.equal(await names(), before, 'the add was rolled back with the refused delete');
  assert.equal((await cordelia.patch('/users/me/subscriptions', {})).body.msg, 'Nothing to do. Specify at least one of "add" or "delete".');
});

channels('POST /channels/create: one channel, the users named subscribed; a taken name is a 409', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const name = fresh('Harbour');
  const folder = Number((await iago.post('/channel_folders/create', { name: fresh('Places') })).body.channel_folder_id);
  const created = await hamlet.post('/channels/create', { name, description: 'Ships *come in*', subscribers: JSON.stringify([await userId(othello)]), folder_id: folder });
  assertMatchesReference('POST /channels/create', created.body);
  const id = Number(created.body.id);
  const stream = (await hamlet.get(`/streams/${id}`)).body.stream as { name: string; folder_id: number; rendered_description: string };
  assert.equal([stream.name, stream.folder_id, stream.rendered_description], [name, folder, '<p>Ships <em>come in</em></p>']);
  assert.is((await othello.get(`/users/${await userId(othello)}/subscriptions/${id}`)).body.is_subscribed, true);
  assert.is((await hamlet.get(`/users/${await userId(hamlet)}/subscriptions/${id}`)).body.is_subscribed, false, 'the creator is subscribed only if named');
  const taken = await othello.post('/channels/create', { name, subscribers: '[]' });
  assertMatchesReference('POST /channels/create', taken.body, {}, 409);
  assert.equal([taken.status, taken.body.code, taken.body.msg], [409, 'CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`]);
  const nowhere = fresh('Nowhere');
  for (const [client, params, message] of [
    [hamlet, { name: nowhere, subscribers: '[]', folder_id: 999999 }, 'Invalid channel folder ID'],
    [hamlet, { name: fresh('Ghosts'), subscribers: '[424242]' }, 'Invalid user ID 424242'],
    [hamlet, { name: fresh('Default'), subscribers: '[]', is_default_stream: true }, 'Must be an organization administrator'],
    [await server.as('polonius@zulip.com'), { name: fresh('Guests'), subscribers: '[]' }, 'Insufficient permission'],
  ] as const) {
    const refused = await client.post('/channels/create', params);
    assert.equal([refused.status, refused.body.msg], [400, message], JSON.stringify(params));
  }
  assert.is((await hamlet.get('/get_stream_id', { stream: nowhere })).status, 400, 'refused requests create nothing');
});

channels("GET /users/{id}/subscriptions/{stream_id}: whether someone is subscribed, to channels the requester can read", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const name = fresh('Secret');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: ['othello@zulip.com', 'iago@zulip.com'], invite_only: true });
  const secret = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const status = await othello.get(`/users/${await userId(othello)}/subscriptions/${secret}`);
  assertMatchesReference('GET /users/{user_id}/subscriptions/{stream_id}', status.body);
  assert.is(status.body.is_subscribed, true);
  assert.is((await othello.get(`/users/${await userId(hamlet)}/subscriptions/${secret}`)).body.is_subscribed, false);
  assert.is((await othello.get(`/users/${await userId(hamlet)}/subscriptions/${verona}`)).body.is_subscribed, true);
  for (const [path, message] of [
    [`/users/${await userId(othello)}/subscriptions/${secret}`, 'Invalid channel ID'],
    [`/users/424242/subscriptions/${verona}`, 'No such user'],
    [`/users/${await userId(othello)}/subscriptions/999999`, 'Invalid channel ID'],
  ] as const) {
    const refused = await hamlet.get(path);
    assert.equal([refused.status, refused.body.msg], [400, message], path);
  }
});

channels("a channel's e-mail address is empty: the server has no e-mail gateway (as Zulip answers without one)", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const address = await hamlet.get(`/streams/${verona}/email_address`);
  assertMatchesReference('GET /streams/{stream_id}/email_address', address.body);
  assert.is(address.body.email, '');
  const unknown = await hamlet.get('/streams/999999/email_address');
  assertMatchesReference('GET /streams/{stream_id}/email_address', unknown.body, {}, 400);
  assert.equal([unknown.status, unknown.body.msg], [400, 'Invalid channel ID']);
});

channels('every channel endpoint requires valid credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/users/me/subscriptions'],
    ['POST', '/channels/create'],
    ['GET', '/users/me/subscriptions'],
    ['PATCH', '/users/me/subscriptions'],
    ['GET', '/streams'],
    ['GET', '/streams/1'],
    ['GET', '/streams/1/members'],
    ['GET', '/streams/1/email_address'],
    ['GET', '/users/1/subscriptions/1'],
    ['GET', '/get_stream_id'],
    ['GET', '/user_groups'],
    ['DELETE', '/users/me/subscriptions'],
    ['POST', '/default_streams'],
    ['DELETE', '/default_streams'],
  ]);
});

channels.run();
