// Presence and typing: the in-memory hot paths. Reports and typing never write LMDB; presence
// follows Zulip's rules (who is announced when, formats, presence_enabled, history limits) and
// survives a graceful restart; typing goes to exactly the conversation, honouring the settings.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { TestClock } from './helpers/clock.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const presence = suite<{ server: TestServer; clock: TestClock }>('presence');

presence.before.each(async (context) => {
  context.clock = new TestClock();
  context.server = await startTestServer({ clock: context.clock });
});
presence.after.each(async ({ server }) => server.stop());

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function report(client: ApiClient, params: Record<string, unknown>) {
  const response = await client.post('/users/me/presence', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /users/me/presence', response.body);
  return response.body;
}

/** Events of a queue so far, without waiting. */
async function drain(client: ApiClient, queueId: string): Promise<Event[]> {
  const response = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  return (response.body.events as Event[]).filter((event) => event.type !== 'heartbeat');
}

presence('reports: modern and legacy formats, last_update_id, and ping_only', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const hamletId = await idOf(hamlet);
  const first = await report(hamlet, { status: 'active', last_update_id: -1 });
  const mine = (first.presences as Record<string, { active_timestamp: number; idle_timestamp: number }>)[String(hamletId)]!;
  assert.is(mine.active_timestamp, mine.idle_timestamp);
  assert.ok(Number(first.presence_last_update_id) > 0);
  assert.type(first.server_timestamp, 'number');
  // Nothing newer than what the client has: the same ID back, no data.
  const again = await report(othello, { status: 'idle', last_update_id: first.presence_last_update_id });
  assert.equal(Object.keys(again.presences as object), [String(await idOf(othello))]);
  assert.ok(Number(again.presence_last_update_id) > Number(first.presence_last_update_id));
  const legacy = await report(othello, { status: 'active' });
  assert.equal((legacy.presences as Record<string, unknown>)['hamlet@zulip.com'], {
    aggregated: { client: 'website', status: 'active', timestamp: mine.active_timestamp },
    website: { client: 'website', status: 'active', timestamp: mine.active_timestamp, pushable: false },
  });
  assert.equal(await report(hamlet, { status: 'active', ping_only: true }), { result: 'success', msg: '' });
  const none = await report(hamlet, { status: 'active', history_limit_days: 0, slim_presence: true });
  assert.equal([none.presences, none.presence_last_update_id], [{}, -1]);
});

// An older client's presence (no simplified_presence_events): events in the legacy format, by e-mail.
const legacy = { client_capabilities: {} };

presence('coming online is announced once, not on every ping; register + events == a fresh register', async ({ server, clock }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const queue = await register(iago, { event_types: ['presence'], fetch_event_types: ['presence'], ...legacy });
  await report(hamlet, { status: 'active' });
  await report(hamlet, { status: 'active' });
  clock.advance(60_000);
  await report(hamlet, { status: 'active' });
  let events = await drain(iago, queue.queueId);
  assert.is(events.length, 1, JSON.stringify(events));
  // Gone for a while, back: announced again.
  clock.advance(5 * 60_000);
  await report(hamlet, { status: 'active' });
  events = await drain(iago, queue.queueId);
  assert.is(events.length, 2, JSON.stringify(events));
  for (const event of events) {
    assertEventMatchesReference(event);
    assert.equal([event.email, event.presence && Object.keys(event.presence as object)], ['hamlet@zulip.com', ['website']]);
  }
  const state = structuredClone(queue.state);
  for (const event of events) applyEvent(state, event);
  const fresh = await register(iago, { fetch_event_types: ['presence'], event_types: ['presence'], ...legacy });
  assert.equal(comparable(state), comparable(fresh.state));
});

presence('GET /users/{id}/presence and GET /realm/presence; offline after the threshold; errors', async ({ server, clock }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const hamletId = await idOf(hamlet);
  const before = await othello.get(`/users/${hamletId}/presence`);
  assert.equal([before.status, before.body.msg], [400, `No presence data for ${hamletId}`]);
  await report(hamlet, { status: 'active' });
  for (const key of [String(hamletId), 'hamlet@zulip.com']) {
    const response = await othello.get(`/users/${key}/presence`);
    assertMatchesReference('GET /users/{user_id_or_email}/presence', response.body);
    assert.is((response.body.presence as { aggregated: { status: string } }).aggregated.status, 'active');
  }
  clock.advance(200_000);
  const later = await othello.get(`/users/${hamletId}/presence`);
  assert.equal((later.body.presence as { aggregated: { status: string }; website: { status: string } }).aggregated.status, 'offline');
  const realm = await othello.get('/realm/presence');
  assertMatchesReference('GET /realm/presence', realm.body);
  assert.ok('hamlet@zulip.com' in (realm.body.presences as object));
  assert.equal((await othello.get('/users/99999/presence')).body.msg, 'No such user');
  assert.equal((await othello.get('/users/nobody@zulip.com/presence')).body.msg, 'No such user');
  const bots = (await (await server.as('iago@zulip.com')).get('/users')).body.members as { user_id: number; is_bot: boolean }[];
  const bot = bots.find((member) => member.is_bot)!;
  assert.equal((await othello.get(`/users/${bot.user_id}/presence`)).body.msg, 'Presence is not supported for bot users.');
  const invalid = await hamlet.post('/users/me/presence', { status: 'away' });
  assert.is(invalid.status, 400);
  await assertRequiresCredentials(server.anonymous, [['POST', '/users/me/presence'], ['GET', '/realm/presence'], ['GET', '/users/1/presence']]);
});

presence('presence_enabled off: shown offline at once and reports ignored; on: online again', async ({ server, clock }) => {
  // Users who never reported active count as active when they joined (Zulip's default): a while ago.
  clock.advance(3600_000);
  const cordelia = await server.as('cordelia@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const queue = await register(iago, { event_types: ['presence'], ...legacy });
  await report(cordelia, { status: 'active' });
  await cordelia.patch('/settings', { presence_enabled: false });
  await report(cordelia, { status: 'active' });
  const off = await iago.get('/users/cordelia@zulip.com/presence');
  assert.is((off.body.presence as { aggregated: { status: string } }).aggregated.status, 'offline');
  await cordelia.patch('/settings', { presence_enabled: true });
  const on = await iago.get('/users/cordelia@zulip.com/presence');
  assert.is((on.body.presence as { aggregated: { status: string } }).aggregated.status, 'active');
  const events = (await drain(iago, queue.queueId)).map((event) => (event.presence as { website: { status: string } }).website.status);
  assert.equal(events, ['active', 'idle', 'active']);
});

presence('a graceful restart keeps last-seen times', async (context) => {
  const { server } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const seen = await report(hamlet, { status: 'active', slim_presence: true });
  await server.parley.close();
  const restarted = await startTestServer({ dataDir: server.config.dataDir, clock: server.config.clock });
  context.server = restarted;
  const othello = await restarted.as('othello@zulip.com');
  const again = await othello.get('/realm/presence');
  assert.ok('hamlet@zulip.com' in (again.body.presences as object), JSON.stringify(again.body));
  const fresh = await othello.post('/register', { fetch_event_types: ['presence'], slim_presence: true });
  assert.equal(fresh.body.presences, seen.presences);
});

presence.run();

const typing = suite<{ server: TestServer }>('typing');

typing.before(async (context) => {
  context.server = await startTestServer();
});
typing.after(async ({ server }) => server.stop());

async function refused(client: ApiClient, path: string, params: Record<string, unknown>, msg: string): Promise<void> {
  const response = await client.post(path, params);
  assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(params));
  assertMatchesReference('POST /typing', response.body, {}, 400);
}

typing('direct: everyone in the conversation, the sender too, except who turned them off', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const [hamletId, othelloId, cordeliaId] = await Promise.all([hamlet, othello, cordelia].map(idOf));
  await cordelia.patch('/settings', { receives_typing_notifications: false });
  const queues = await Promise.all([hamlet, othello, cordelia].map((client) => register(client, { event_types: ['typing'] })));
  const sent = await hamlet.post('/typing', { op: 'start', to: JSON.stringify([othelloId, cordeliaId]) });
  assertMatchesReference('POST /typing', sent.body);
  const [forHamlet, forOthello] = await Promise.all([pollEvents(hamlet, queues[0]!.queueId, 1), pollEvents(othello, queues[1]!.queueId, 1)]);
  assert.equal(forHamlet, forOthello);
  const event = forOthello[0]!;
  assertEventMatchesReference(event);
  assert.equal(event.sender, { user_id: hamletId, email: 'hamlet@zulip.com' });
  assert.equal((event.recipients as { user_id: number }[]).map((person) => person.user_id).sort(), [othelloId, cordeliaId, hamletId].sort());
  assert.equal(await drain(cordelia, queues[2]!.queueId), []);
  await cordelia.patch('/settings', { receives_typing_notifications: true });
});

typing('channel: subscribers get start and stop with the topic; errors as Zulip', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const channels = (await iago.get('/streams')).body.streams as { stream_id: number; name: string }[];
  const verona = channels.find((channel) => channel.name === 'Verona')!;
  const queue = await register(hamlet, { event_types: ['typing'] });
  await iago.post('/typing', { type: 'channel', op: 'start', stream_id: verona.stream_id, topic: 'lunch' });
  await iago.post('/typing', { type: 'stream', op: 'stop', stream_id: verona.stream_id, topic: 'lunch' });
  const events = await pollEvents(hamlet, queue.queueId, 2);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal(events.map((event) => [event.op, event.message_type, event.stream_id, event.topic]), [
    ['start', 'stream', verona.stream_id, 'lunch'],
    ['stop', 'stream', verona.stream_id, 'lunch'],
  ]);
  await refused(iago, '/typing', { type: 'stream', op: 'start', topic: 'x' }, "Missing 'stream_id' argument");
  await refused(iago, '/typing', { type: 'stream', op: 'start', stream_id: verona.stream_id }, 'Missing topic');
  await refused(iago, '/typing', { type: 'stream', op: 'start', stream_id: 99999, topic: 'x' }, 'Invalid channel ID');
  await refused(iago, '/typing', { op: 'start' }, "Missing 'to' argument");
  await refused(iago, '/typing', { op: 'start', to: '[]' }, "Empty 'to' list");
  await refused(iago, '/typing', { op: 'start', to: '[99999]' }, 'Invalid user ID 99999');
  await iago.patch('/settings', { send_stream_typing_notifications: false, send_private_typing_notifications: false });
  await refused(iago, '/typing', { type: 'stream', op: 'start', stream_id: verona.stream_id, topic: 'x' }, 'User has disabled typing notifications for channel messages');
  await refused(iago, '/typing', { op: 'start', to: JSON.stringify([await idOf(hamlet)]) }, 'User has disabled typing notifications for direct messages');
  await iago.patch('/settings', { send_stream_typing_notifications: true, send_private_typing_notifications: true });
  assert.is((await iago.post('/typing', { op: 'begin', to: '[1]' })).status, 400);
  await assertRequiresCredentials(server.anonymous, [['POST', '/typing']]);
});

typing('editing a message: typing_edit_message to the channel; only its sender may', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'edits', content: 'first draft' });
  const messageId = Number(sent.body.id);
  const queue = await register(othello, { event_types: ['typing_edit_message'] });
  const response = await hamlet.post(`/messages/${messageId}/typing`, { op: 'start' });
  assertMatchesReference('POST /messages/{message_id}/typing', response.body);
  const [event] = await pollEvents(othello, queue.queueId, 1);
  const channelId = ((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id) as number;
  // Not in the reference's event list: Zulip's shape (zerver/lib/event_types.py).
  assert.equal(event, { id: event!.id, type: 'typing_edit_message', op: 'start', sender_id: await idOf(hamlet), message_id: messageId, recipient: { type: 'channel', channel_id: channelId, topic: 'edits' } });
  await refused(othello, `/messages/${messageId}/typing`, { op: 'start' }, "You don't have permission to edit this message");
  await refused(othello, '/messages/99999/typing', { op: 'start' }, 'Invalid message(s)');
  await assertRequiresCredentials(server.anonymous, [['POST', `/messages/${messageId}/typing`]]);
});

typing('register reports Zulip typing and presence timings', async ({ server }) => {
  const state = (await register(await server.as('hamlet@zulip.com'), { fetch_event_types: ['realm'] })).state;
  assert.equal(
    [state.server_typing_started_expiry_period_milliseconds, state.server_typing_stopped_wait_period_milliseconds, state.server_typing_started_wait_period_milliseconds, state.server_presence_ping_interval_seconds, state.server_presence_offline_threshold_seconds],
    [45000, 12000, 30000, 60, 140],
  );
});

typing.run();
