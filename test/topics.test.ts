// Subscription settings (spec endpoint 13) and topic muting (spec endpoint 4, and POST /user_topics
// over the same state): rules, errors, the events, and register + events == a fresh register.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const topics = suite<{ server: TestServer }>('subscription settings and topic muting');

topics.before(async (context) => {
  context.server = await startTestServer();
});
topics.after(async ({ server }) => server.stop());

const channelId = async (client: ApiClient, name: string): Promise<number> => Number((await client.get('/get_stream_id', { stream: name })).body.stream_id);
const eventsOf = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
type Sub = { stream_id: number; color: string; is_muted: boolean; in_home_view: boolean; pin_to_top: boolean; desktop_notifications: boolean | null };
const subscription = async (client: ApiClient, id: number): Promise<Sub> =>
  ((await client.get('/users/me/subscriptions')).body.subscriptions as Sub[]).find((sub) => sub.stream_id === id)!;

topics('each property can be set; is_muted and in_home_view are one setting, announced as two events', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = await channelId(hamlet, 'Verona');
  const queue = await register(hamlet, { event_types: ['subscription'] });
  const set = async (property: string, value: unknown) => {
    const response = await hamlet.patch(`/users/me/subscriptions/${verona}`, { property, value });
    // The reference lacks this endpoint; the spec's response is {result, msg}.
    assert.equal(response.body, { result: 'success', msg: '' }, JSON.stringify(response.body));
  };
  await set('is_muted', true);
  assert.equal(((await eventsOf(hamlet, queue.queueId)) as Event[]).map((event) => [event.property, event.value]), [
    ['in_home_view', false],
    ['is_muted', true],
  ]);
  assert.equal([(await subscription(hamlet, verona)).is_muted, (await subscription(hamlet, verona)).in_home_view], [true, false]);
  await set('in_home_view', true);
  assert.is((await subscription(hamlet, verona)).is_muted, false);
  await set('color', '"#f00f00"');
  await set('pin_to_top', true);
  await set('desktop_notifications', false);
  const sub = await subscription(hamlet, verona);
  assert.equal([sub.color, sub.pin_to_top, sub.desktop_notifications], ['#f00f00', true, false]);
  for (const event of await eventsOf(hamlet, queue.queueId)) assertEventMatchesReference(event);
});

topics('bad values, unknown channels and channels one is not in are refused; the bulk form is all or nothing', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = await channelId(hamlet, 'Verona');
  const scotland = await channelId(hamlet, 'Scotland');
  const refused = async (params: Record<string, unknown>, pattern: RegExp, id = verona) => {
    const response = await hamlet.patch(`/users/me/subscriptions/${id}`, params);
    assert.is(response.status, 400, JSON.stringify(params));
    assert.match(String(response.body.msg), pattern);
  };
  await refused({ property: 'color', value: 'red' }, /hex color/);
  await refused({ property: 'pin_to_top', value: 'sometimes' }, /is not a boolean/);
  await refused({ property: 'volume', value: true }, /Invalid property/);
  await refused({ property: 'pin_to_top', value: true }, /Not subscribed/, scotland);
  await refused({ property: 'pin_to_top', value: true }, /Invalid channel ID/, 987654);
  const before = await subscription(hamlet, verona);
  const bulk = await hamlet.post('/users/me/subscriptions/properties', {
    subscription_data: [
      { stream_id: verona, property: 'color', value: '#123456' },
      { stream_id: scotland, property: 'color', value: '#654321' },
    ],
  });
  assert.is(bulk.status, 400);
  assert.is((await subscription(hamlet, verona)).color, before.color, 'the valid first change was not stored');
  const ok = await hamlet.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: verona, property: 'color', value: '#123456' }] });
  assertMatchesReference('POST /users/me/subscriptions/properties', ok.body);
  assert.is((await subscription(hamlet, verona)).color, '#123456');
});

topics('muting: by ID or name (exactly one), repeating succeeds, topics without messages, unmuting', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const denmark = await channelId(cordelia, 'Denmark');
  const mute = (params: Record<string, unknown>) => cordelia.patch('/users/me/subscriptions/muted_topics', params);
  for (const attempt of [1, 2]) {
    const response = await mute({ stream_id: denmark, topic: 'never written to', op: 'add' });
    assert.equal(response.body, { result: 'success', msg: '' }, `attempt ${attempt}`);
  }
  assert.is((await mute({ stream: 'Denmark', topic: 'castle', op: 'add' })).status, 200);
  const state = await register(cordelia, { fetch_event_types: ['user_topic', 'muted_topics'] });
  assert.equal((state.state.muted_topics as [string, string, number][]).map(([channel, topic]) => [channel, topic]).sort(), [
    ['Denmark', 'castle'],
    ['Denmark', 'never written to'],
  ]);
  for (const attempt of [1, 2]) assert.is((await mute({ stream_id: denmark, topic: 'castle', op: 'remove' })).status, 200, `remove ${attempt}`);
  assert.match(String((await mute({ stream_id: denmark, stream: 'Denmark', topic: 't', op: 'add' })).body.msg), /Please choose one/);
  assert.match(String((await mute({ topic: 't', op: 'add' })).body.msg), /Please choose one/);
  assert.match(String((await mute({ stream_id: denmark, topic: 't'.repeat(61), op: 'add' })).body.msg), /too long \(limit: 60/);
  assert.is((await mute({ stream: 'Atlantis', topic: 't', op: 'add' })).status, 400);
  assert.match(String((await mute({ stream: 'Scotland', topic: 't', op: 'add' })).body.msg), /Not subscribed/, 'muting needs a subscription');
  assert.is((await mute({ stream_id: denmark, topic: 't', op: 'toggle' })).body.msg, 'Invalid op');
});

topics('POST /user_topics sets any policy over the same state; events; register + events == fresh', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const verona = await channelId(othello, 'Verona');
  const before = await register(othello, { fetch_event_types: ['user_topic', 'muted_topics'], event_types: ['user_topic', 'muted_topics'] });
  for (const policy of [3, 1, 2, 0, 1]) {
    const response = await othello.post('/user_topics', { stream_id: verona, topic: 'greetings', visibility_policy: policy });
    assert.is(response.status, 200, JSON.stringify(response.body));
    assertMatchesReference('POST /user_topics', response.body);
  }
  await othello.patch('/users/me/subscriptions/muted_topics', { stream_id: verona, topic: 'GREETINGS', op: 'remove' });
  assert.is((await othello.post('/user_topics', { stream_id: verona, topic: 'x', visibility_policy: 7 })).status, 400);
  const events = await eventsOf(othello, before.queueId);
  assert.equal(events.filter((event) => event.type === 'user_topic').map((event) => event.visibility_policy), [3, 1, 2, 0, 1, 0]);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(othello, { fetch_event_types: ['user_topic', 'muted_topics'] })).state));
});

topics('the settings and muting endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['PATCH', '/users/me/subscriptions/1'],
    ['POST', '/users/me/subscriptions/properties'],
    ['PATCH', '/users/me/subscriptions/muted_topics'],
    ['POST', '/user_topics'],
  ]);
});

topics.run();
