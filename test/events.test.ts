// Event queues through the long-poll API: register, GET /events, DELETE /events, heartbeats,
// acknowledgement, filtering, ownership, garbage collection and graceful restarts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { startParley } from '../src/app.js';
import { QUEUE_GC_INTERVAL_MS } from '../src/events/queues.js';
import { ApiClient } from './helpers/client.js';
import { TestClock } from './helpers/clock.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference, specRegisterFields, specUserFields } from './helpers/reference.js';
import { startTestServer, waitFor, type TestServer } from './helpers/server.js';

const events = suite<{ server: TestServer; clock: TestClock }>('event queues');

events.before(async (context) => {
  context.clock = new TestClock();
  context.server = await startTestServer({ clock: context.clock });
});
events.after(async ({ server }) => server.stop());

let created = 0;
async function createUser(server: TestServer): Promise<number> {
  const iago = await server.as('iago@zulip.com');
  created++;
  const response = await iago.post('/users', { email: `new${created}@zulip.com`, full_name: `New ${created}`, password: 'secret-pw' });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.user_id);
}

events('register returns the queue, the versions, the limits and the initial state', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.post('/register', { client_gravatar: false });
  assert.is(response.status, 200);
  assertMatchesReference('POST /register', response.body, [{ ...specUserFields, at: ['realm_users[]', 'realm_non_active_users[]'] }, specRegisterFields]);
  const body = response.body;
  assert.type(body.queue_id, 'string');
  assert.type(body.last_event_id, 'number');
  assert.type(body.server_generation, 'number');
  assert.is(body.zulip_feature_level, 404);
  assert.is(body.event_queue_longpoll_timeout_seconds, 90);
  assert.is(body.realm_empty_topic_display_name, 'general chat');
  for (const limit of ['max_stream_name_length', 'max_stream_description_length', 'max_topic_length', 'max_message_length', 'max_channel_folder_name_length', 'max_channel_folder_description_length']) {
    assert.type(body[limit], 'number', limit);
  }
  const users = body.realm_users as { email: string }[];
  assert.ok(users.some((user) => user.email === 'polonius@zulip.com'));
  assert.is(body.user_id, (await hamlet.get('/users/me')).body.user_id);
});

events('fetch_event_types limits the initial state to those types', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { state } = await register(hamlet, { fetch_event_types: ['realm'] });
  assert.ok('realm_name' in state);
  assert.not.ok('realm_users' in state);
  assert.ok('max_topic_length' in state, 'limits are always there');
});

events('a change wakes a parked long-poll with its event, validated against the reference', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet);
  const parked = pollEvents(hamlet, queueId, 1);
  const userId = await createUser(server);
  // (user_group add_members follows; this test reads the first event)
  const [event] = await parked;
  assert.is(event!.type, 'realm_user');
  assert.is(event!.op, 'add');
  assert.is((event!.person as { user_id: number }).user_id, userId);
  assertEventMatchesReference(event!, { ...specUserFields, at: ['person'] });
});

events('event IDs increase; last_event_id acknowledges and prunes; dont_block answers at once', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['realm_user'] });
  await createUser(server);
  await createUser(server);
  const both = await pollEvents(hamlet, queueId, 2);
  const [first, second] = both.map((event) => event.id) as [number, number];
  assert.ok(second > first, 'IDs increase within a queue (Zulip allows gaps)');
  const afterFirst = await hamlet.get('/events', { queue_id: queueId, last_event_id: first, dont_block: true });
  assert.equal((afterFirst.body.events as Event[]).map((event) => event.id), [second]);
  const again = await hamlet.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.equal((again.body.events as Event[]).map((event) => event.id), [second], 'the first event was acknowledged and pruned');
  const empty = await hamlet.get('/events', { queue_id: queueId, last_event_id: second, dont_block: true });
  assert.equal(empty.body.events, []);
  assertMatchesReference('GET /events', empty.body);
});

events('a long-poll with nothing to deliver is answered by a heartbeat event', async ({ server, clock }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId, state } = await register(hamlet);
  const polling = hamlet.get('/events', { queue_id: queueId, last_event_id: state.last_event_id });
  const queue = server.parley.queues.get(queueId, server.parley.realms.forHost('')!.realm.id, Number((await hamlet.get('/users/me')).body.user_id));
  await waitFor(() => queue.consumer !== null);
  clock.advance(server.config.heartbeatSeconds * 1000);
  const response = await polling;
  const [heartbeat] = response.body.events as Event[];
  assert.is(heartbeat!.type, 'heartbeat');
  assert.ok(heartbeat!.id > Number(state.last_event_id));
  assertEventMatchesReference((response.body.events as Event[])[0]!);
});

events('DELETE /events answers a parked long-poll of the queue with success, not an error', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId, state } = await register(hamlet);
  const polling = hamlet.get('/events', { queue_id: queueId, last_event_id: state.last_event_id });
  const queue = server.parley.queues.get(queueId, server.parley.realms.forHost('')!.realm.id, Number((await hamlet.get('/users/me')).body.user_id));
  await waitFor(() => queue.consumer !== null);
  const deleted = await hamlet.delete('/events', { queue_id: queueId });
  assert.equal(deleted.body, { result: 'success', msg: '' });
  const parked = await polling;
  assert.equal([parked.status, parked.body.events], [200, []]);
  assertMatchesReference('GET /events', parked.body);
  assert.is((await hamlet.get('/events', { queue_id: queueId, dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
});

events('event_types filters what a queue receives', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['stream'] });
  await createUser(server);
  const response = await hamlet.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.equal(response.body.events, []);
});

events("another user's queue, a deleted queue and an unknown queue are BAD_EVENT_QUEUE_ID", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { queueId } = await register(hamlet);
  const stolen = await othello.get('/events', { queue_id: queueId, dont_block: true });
  assert.is(stolen.status, 400);
  assertMatchesComponent('BadEventQueueIdError', stolen.body);
  assert.is(stolen.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await othello.delete('/events', { queue_id: queueId })).status, 400);
  const deleted = await hamlet.delete('/events', { queue_id: queueId });
  assert.equal(deleted.body, { result: 'success', msg: '' });
  assert.is((await hamlet.get('/events', { queue_id: queueId, dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await hamlet.get('/events', { queue_id: 'nope', dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await hamlet.get('/events')).body.code, 'REQUEST_VARIABLE_MISSING');
});

events('all_public_streams: a queue gets the messages of every public channel, without flags; never a private one', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  await iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Lobby' }]) });
  await iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Backroom' }]), invite_only: true });
  const everywhere = await register(cordelia, { all_public_streams: true, event_types: ['message'] });
  const usual = await register(cordelia, { event_types: ['message'] });
  const open = Number((await iago.post('/messages', { type: 'stream', to: 'Lobby', topic: 'hello', content: 'for everyone' })).body.id);
  await iago.post('/messages', { type: 'stream', to: 'Backroom', topic: 'psst', content: 'not for cordelia' });
  const received = (await cordelia.get('/events', { queue_id: everywhere.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(received.map((event) => [(event.message as { id: number }).id, event.flags]), [[open, []]]);
  for (const event of received) assertEventMatchesReference(event);
  assert.equal((await cordelia.get('/events', { queue_id: usual.queueId, last_event_id: -1, dont_block: true })).body.events, [], 'her other queue asked for nothing of the kind');
});

events('all_public_streams: a subscriber holding such a queue gets a message once, with its own flags', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  await iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Hall' }]), principals: JSON.stringify(['hamlet@zulip.com']) });
  const everywhere = await register(hamlet, { all_public_streams: true, event_types: ['message'] });
  const id = Number((await iago.post('/messages', { type: 'stream', to: 'Hall', topic: 'hello', content: 'hi @**King Hamlet**' })).body.id);
  const received = (await hamlet.get('/events', { queue_id: everywhere.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(received.map((event) => [(event.message as { id: number }).id, event.flags]), [[id, ['mentioned']]]);
});

events('the event endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/register'],
    ['GET', '/events'],
    ['DELETE', '/events'],
    ['POST', '/events/socket_token'],
  ]);
});

events('queues idle past their lifespan are collected', async ({ server, clock }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const short = await register(hamlet, { lifespan_secs: 1 });
  const long = await register(hamlet);
  clock.advance(QUEUE_GC_INTERVAL_MS);
  assert.is((await hamlet.get('/events', { queue_id: short.queueId, dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
  assert.is((await hamlet.get('/events', { queue_id: long.queueId, dont_block: true })).status, 200);
});

events('register + events == a fresh register, after a sequence of changes', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const options = { client_gravatar: false, include_subscribers: true };
  const before = await register(cordelia, options);
  const adminBefore = await register(iago, options);
  const ids = { cordelia: (await cordelia.get('/users/me')).body.user_id, othello: (await othello.get('/users/me')).body.user_id };
  const changes: Promise<unknown>[] = [];
  const step = (promise: Promise<{ status: number; body: unknown }>) =>
    changes.push(promise.then((response) => assert.is(response.status, 200, JSON.stringify(response.body))));
  await createUser(server);
  step(iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Sequence public' }], principals: [ids.othello] }));
  await Promise.all(changes);
  step(othello.post('/users/me/subscriptions', { subscriptions: [{ name: 'Sequence public' }], principals: [ids.cordelia] }));
  step(iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Sequence private' }], invite_only: true, principals: [ids.cordelia] }));
  step(othello.post('/users/me/subscriptions', { subscriptions: [{ name: 'Scotland' }] }));
  await Promise.all(changes);
  step(othello.post('/messages', { type: 'stream', to: 'Sequence public', topic: 'hello', content: 'first' }));
  step(othello.post('/messages', { type: 'private', to: [ids.cordelia], content: 'direct' }));
  await Promise.all(changes);
  await createUser(server);
  for (const [client, registered] of [
    [cordelia, before],
    [iago, adminBefore],
  ] as const) {
    const received = (await client.get('/events', { queue_id: registered.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
    assert.ok(received.length >= 5, `${client.email} got ${received.length} events`);
    for (const event of received) applyEvent(registered.state, event);
    const fresh = await register(client, options);
    assert.equal(comparable(registered.state), comparable(fresh.state), client.email);
  }
});

events.run();

const restart = suite('event queues across a graceful restart');

restart('a queue and its unacknowledged events survive a graceful restart, then keep working', async () => {
  const server = await startTestServer();
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['realm_user'] });
  const iago = await server.as('iago@zulip.com');
  await iago.post('/users', { email: 'before@zulip.com', full_name: 'Before', password: 'secret-pw' });
  await server.parley.close();

  const again = await startParley(server.config);
  try {
    const baseUrl = `http://127.0.0.1:${again.http.port}`;
    const hamletAgain = new ApiClient(baseUrl, hamlet.credentials);
    const iagoAgain = new ApiClient(baseUrl, iago.credentials);
    await iagoAgain.post('/users', { email: 'after@zulip.com', full_name: 'After', password: 'secret-pw' });
    const received = await pollEvents(hamletAgain, queueId, 3);
    assert.equal(
      received.map((event) => (event.type === 'restart' ? 'restart' : (event.person as { email: string }).email)),
      ['before@zulip.com', 'restart', 'after@zulip.com'],
    );
    assert.ok(received[1]!.id > received[0]!.id && received[2]!.id > received[1]!.id, 'IDs keep increasing across the restart');
    assertEventMatchesReference(received[1]!);
  } finally {
    await again.close();
  }
});

restart('closing the server answers a parked long-poll instead of waiting for it', async () => {
  const server = await startTestServer({ heartbeatSeconds: 60 });
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet);
  const parked = hamlet.get('/events', { queue_id: queueId, last_event_id: -1 });
  const userId = Number((await hamlet.get('/users/me')).body.user_id);
  const realmId = server.parley.realms.forHost('')!.realm.id;
  await waitFor(() => server.parley.queues.get(queueId, realmId, userId).consumer !== null);
  const started = Date.now();
  await server.stop();
  const response = await parked;
  assert.is(response.status, 200);
  assert.equal(response.body.events, []);
  assert.ok(Date.now() - started < 10_000);
});

restart.run();
