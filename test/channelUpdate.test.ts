// Updating a channel (spec endpoint 2) and archiving it: rights, every parameter's rule, the
// channel lifecycle, events, and register + events == a fresh register.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const update = suite<{ server: TestServer }>('channel update and archive');

update.before(async (context) => {
  context.server = await startTestServer();
});
update.after(async ({ server }) => server.stop());

let counter = 0;
type Channel = Record<string, unknown> & { stream_id: number; name: string };

async function newChannel(client: ApiClient, options: Record<string, unknown> = {}): Promise<number> {
  const name = `Update ${++counter}`;
  const response = await client.post('/users/me/subscriptions', { subscriptions: [{ name }], ...options });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number((await client.get('/get_stream_id', { stream: name })).body.stream_id);
}
const channelOf = async (client: ApiClient, id: number): Promise<Channel> => (await client.get(`/streams/${id}`)).body.stream as Channel;
const groupId = async (client: ApiClient, name: string): Promise<number> =>
  ((await client.get('/user_groups')).body.user_groups as { id: number; name: string }[]).find((group) => group.name === name)!.id;

update('organization administrators and channel administrators may update; members may not', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await newChannel(iago);
  const refused = await hamlet.patch(`/streams/${id}`, { description: 'mine now' });
  assert.equal([refused.status, refused.body.code], [400, 'UNAUTHORIZED_PRINCIPAL']);
  const ok = await iago.patch(`/streams/${id}`, { description: 'An *updated* channel', new_name: `Renamed ${counter}` });
  assert.is(ok.status, 200);
  assertMatchesReference('PATCH /streams/{stream_id}', ok.body);
  const channel = await channelOf(iago, id);
  assert.equal([channel.name, channel.rendered_description], [`Renamed ${counter}`, '<p>An <em>updated</em> channel</p>']);
  const own = await newChannel(hamlet);
  assert.is((await hamlet.patch(`/streams/${own}`, { description: 'the creator administers it' })).status, 200);
  assert.match(String((await iago.patch(`/streams/${id}`, { new_name: 'Verona' })).body.msg), /already taken/);
  assert.is((await iago.patch('/streams/987654', { description: 'x' })).body.msg, 'Invalid channel ID');
});

update('archive with DELETE, unarchive only through is_archived; archived channels refuse messages', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await newChannel(iago, { principals: ['iago@zulip.com', 'hamlet@zulip.com'] });
  assert.is((await hamlet.delete(`/streams/${id}`)).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.match(String((await iago.patch(`/streams/${id}`, { is_archived: false })).body.msg), /not archived/);
  const archived = await iago.delete(`/streams/${id}`);
  assertMatchesReference('DELETE /streams/{stream_id}', archived.body);
  assert.is((await channelOf(iago, id)).is_archived, true);
  assert.match(String((await iago.delete(`/streams/${id}`)).body.msg), /already archived/);
  assert.is((await hamlet.post('/messages', { type: 'stream', to: id, topic: 't', content: 'x' })).status, 400);
  const listed = async (params: Record<string, unknown>) => ((await iago.get('/streams', params)).body.streams as Channel[]).some((channel) => channel.stream_id === id);
  assert.not.ok(await listed({}), 'archived channels are excluded by default');
  assert.ok(await listed({ exclude_archived: false }));
  assert.match(String((await iago.patch(`/streams/${id}`, { is_archived: true })).body.msg), /DELETE/);
  assert.is((await iago.patch(`/streams/${id}`, { is_archived: false })).status, 200);
  assert.is((await channelOf(iago, id)).is_archived, false);
  assert.is((await hamlet.post('/messages', { type: 'stream', to: id, topic: 't', content: 'back' })).status, 200);
});

update('history_public_to_subscribers=false only for private channels; privacy changes', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const id = await newChannel(iago);
  assert.is((await iago.patch(`/streams/${id}`, { history_public_to_subscribers: false })).body.msg, 'Invalid parameters');
  assert.is((await iago.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: false })).status, 200);
  const channel = await channelOf(iago, id);
  assert.equal([channel.invite_only, channel.history_public_to_subscribers], [true, false]);
  assert.is((await iago.patch(`/streams/${id}`, { is_private: false })).status, 200);
  assert.equal((await channelOf(iago, id)).history_public_to_subscribers, true, 'a public channel always shares its history');
  assert.match(String((await iago.patch(`/streams/${id}`, { is_web_public: true })).body.msg), /Web-public channels are not enabled/);
});

update('group settings: {new, old}; a stale old value is refused and nothing changes', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const members = await groupId(iago, 'role:members');
  const admins = await groupId(iago, 'role:administrators');
  const nobody = await groupId(iago, 'role:nobody');
  const id = await newChannel(iago);
  const stale = await iago.patch(`/streams/${id}`, { can_add_subscribers_group: { new: members, old: admins }, description: 'not applied' });
  assert.equal([stale.status, stale.body.msg], [400, "'old' value does not match the expected value."]);
  const unchanged = await channelOf(iago, id);
  assert.equal([unchanged.can_add_subscribers_group, unchanged.description], [nobody, '']);
  assert.is((await iago.patch(`/streams/${id}`, { can_add_subscribers_group: { new: members, old: nobody } })).status, 200);
  assert.is((await iago.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: { direct_members: [1], direct_subgroups: [members] } } })).status, 200);
  const changed = await channelOf(iago, id);
  assert.equal(changed.can_add_subscribers_group, members);
  assert.equal(changed.can_remove_subscribers_group, { direct_members: [1], direct_subgroups: [members] });
  assert.is((await iago.patch(`/streams/${id}`, { can_send_message_group: { new: 999_999 } })).status, 400);
});

update("a private channel's permissions change only by an administrator subscribed to it", async ({ server }) => {
  const desdemona = await server.as('desdemona@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const members = await groupId(iago, 'role:members');
  const id = await newChannel(desdemona, { invite_only: true });
  const refused = await iago.patch(`/streams/${id}`, { can_subscribe_group: { new: members } });
  assert.match(String(refused.body.msg), /must be subscribed/);
  await desdemona.post('/users/me/subscriptions', { subscriptions: [{ name: (await channelOf(desdemona, id)).name }], principals: ['iago@zulip.com'] });
  assert.is((await iago.patch(`/streams/${id}`, { can_subscribe_group: { new: members } })).status, 200);
});

update('topics_policy, folder_id, message_retention_days and is_default_stream', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const id = await newChannel(iago);
  assert.is((await iago.patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' })).status, 200, 'no messages: allowed');
  await iago.patch(`/streams/${id}`, { topics_policy: 'inherit' });
  await iago.post('/messages', { type: 'stream', to: id, topic: 'named', content: 'x' });
  assert.match(String((await iago.patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' })).body.msg), /general chat topic/);
  assert.is((await iago.patch(`/streams/${id}`, { folder_id: null })).status, 200);
  assert.is((await iago.patch(`/streams/${id}`, { folder_id: 5 })).body.msg, 'Invalid channel folder ID');
  assert.is((await iago.patch(`/streams/${id}`, { message_retention_days: 30 })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.is((await desdemona.patch(`/streams/${id}`, { message_retention_days: 30 })).status, 200);
  assert.is((await channelOf(iago, id)).message_retention_days, 30);
  assert.is((await iago.patch(`/streams/${id}`, { is_default_stream: true })).status, 200);
  assert.ok(((await iago.get('/streams', { include_public: false, include_subscribed: false, include_default: true })).body.streams as Channel[]).some((channel) => channel.stream_id === id));
  const privateId = await newChannel(iago, { invite_only: true });
  assert.match(String((await iago.patch(`/streams/${privateId}`, { is_default_stream: true })).body.msg), /cannot be private/);
});

update('every change is announced; register + events == a fresh register', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const id = await newChannel(iago, { principals: ['iago@zulip.com', 'cordelia@zulip.com'] });
  const options = { client_gravatar: false, include_subscribers: true };
  const before = await register(cordelia, options);
  await iago.patch(`/streams/${id}`, { description: '**bold** move', new_name: `Announced ${counter}` });
  await iago.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: false, topics_policy: 'allow_empty_topic' });
  await iago.patch(`/streams/${id}`, { is_private: false, is_default_stream: true });
  await iago.delete(`/streams/${id}`);
  await iago.patch(`/streams/${id}`, { is_archived: false });
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.ok(events.length >= 8, `${events.length} events`);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, options)).state));
});

update('the channel update endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['PATCH', '/streams/1'],
    ['DELETE', '/streams/1'],
  ]);
});

update.run();
