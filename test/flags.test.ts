// Message flags: by message IDs (spec endpoint 17) and by narrow (spec endpoint 9), the rules and
// errors of both, the event, and the unread state they keep current.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clampWindow } from '../src/realm/commands/flags.js';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const flags = suite<{ server: TestServer }>('message flags');

flags.before(async (context) => {
  context.server = await startTestServer();
});
flags.after(async ({ server }) => server.stop());

let counter = 0;
const flagsOf = async (client: ApiClient, id: number): Promise<string[]> => ((await client.get(`/messages/${id}`)).body.message as { flags: string[] }).flags;

async function freshChannel(owner: ApiClient, members: string[], count: number): Promise<{ name: string; ids: number[] }> {
  const name = `Flags ${++counter}`;
  await owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: members });
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(Number((await owner.post('/messages', { type: 'stream', to: name, topic: i % 2 ? 'odd' : 'even', content: `m${i}` })).body.id));
  return { name, ids };
}

flags('endpoint 17: read, starred and collapsed are set and cleared; the response lists what changed', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { ids } = await freshChannel(iago, ['iago@zulip.com', 'hamlet@zulip.com'], 3);
  const read = await hamlet.post('/messages/flags', { messages: ids.slice(0, 2), op: 'add', flag: 'read' });
  assertMatchesReference('POST /messages/flags', read.body);
  assert.equal(read.body.messages, ids.slice(0, 2));
  assert.equal((await hamlet.post('/messages/flags', { messages: ids, op: 'add', flag: 'read' })).body.messages, [ids[2]], 'only what changed');
  await hamlet.post('/messages/flags', { messages: [ids[0]], op: 'add', flag: 'starred' });
  await hamlet.post('/messages/flags', { messages: [ids[0]], op: 'add', flag: 'collapsed' });
  assert.equal((await flagsOf(hamlet, ids[0]!)).sort(), ['collapsed', 'read', 'starred']);
  await hamlet.post('/messages/flags', { messages: [ids[0]], op: 'remove', flag: 'starred' });
  assert.equal((await flagsOf(hamlet, ids[0]!)).sort(), ['collapsed', 'read']);
});

flags('endpoint 17: only read, starred and collapsed are settable; inaccessible messages are refused', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const own = Number((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'f', content: 'x' })).body.id);
  for (const [flag, msg] of [
    ['mentioned', "Flag not editable: 'mentioned'"],
    ['historical', "Flag not editable: 'historical'"],
    ['shiny', "Invalid flag: 'shiny'"],
  ] as const) {
    const response = await hamlet.post('/messages/flags', { messages: [own], op: 'add', flag });
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg]);
  }
  const secret = Number((await iago.post('/messages', { type: 'stream', to: 'core team', topic: 'f', content: 'private' })).body.id);
  assert.is((await hamlet.post('/messages/flags', { messages: [secret], op: 'add', flag: 'starred' })).body.msg, 'Invalid message(s)');
  assert.is((await hamlet.post('/messages/flags', { messages: [987654321], op: 'add', flag: 'read' })).body.msg, 'Invalid message(s)');
});

flags('starring a public message never received enters it into history; removing read skips unsubscribed channels', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { name, ids } = await freshChannel(iago, ['iago@zulip.com'], 1);
  const starred = await hamlet.post('/messages/flags', { messages: ids, op: 'add', flag: 'starred' });
  assert.equal(starred.body.messages, ids);
  assert.equal((await flagsOf(hamlet, ids[0]!)).sort(), ['historical', 'read', 'starred']);
  const unread = await hamlet.post('/messages/flags', { messages: ids, op: 'remove', flag: 'read' });
  assert.equal(unread.body.messages, []);
  const channelId = Number((await hamlet.get('/get_stream_id', { stream: name })).body.stream_id);
  assert.equal(unread.body.ignored_because_not_subscribed_channels, [channelId]);
});

flags('endpoint 9: a window of a narrow is updated, with counts, ends and the processed IDs', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const { name, ids } = await freshChannel(iago, ['iago@zulip.com', 'cordelia@zulip.com'], 6);
  const narrow = [['channel', name]];
  const marked = await cordelia.post('/messages/flags/narrow', { anchor: String(ids[1]), num_before: 1, num_after: 2, narrow, op: 'add', flag: 'read' });
  assertMatchesReference('POST /messages/flags/narrow', marked.body);
  assert.equal(marked.body, {
    result: 'success',
    msg: '',
    processed_count: 4,
    updated_count: 4,
    first_processed_id: ids[0],
    last_processed_id: ids[3],
    // Exactly num_before messages came before the anchor, so the oldest is not promised (as in Zulip).
    found_oldest: false,
    found_newest: false,
  });
  const rest = await cordelia.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [...narrow, ['is', 'unread']], op: 'add', flag: 'read' });
  assert.equal([rest.body.processed_count, rest.body.updated_count, rest.body.first_processed_id, rest.body.found_newest], [2, 2, ids[4], true]);
  const none = await cordelia.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [...narrow, ['is', 'unread']], op: 'add', flag: 'read' });
  assert.equal([none.body.processed_count, none.body.first_processed_id, none.body.last_processed_id], [0, null, null]);
  const odd = await cordelia.post('/messages/flags/narrow', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [...narrow, ['topic', 'odd']], op: 'remove', flag: 'read' });
  assert.equal([odd.body.updated_count, odd.body.ignored_because_not_subscribed_channels], [3, []]);
});

flags('endpoint 9 after a topic rename, a deletion and a new message: windows and message_details follow them', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const { name, ids } = await freshChannel(iago, ['iago@zulip.com', 'cordelia@zulip.com'], 6);
  const channelId = Number((await cordelia.get('/get_stream_id', { stream: name })).body.stream_id);
  // Reading the channel and everything first brings cordelia's rows and the channel's topics into memory.
  const everything = { anchor: String(ids[0]), num_before: 0, num_after: 100, narrow: [], flag: 'read' };
  assert.is((await cordelia.post('/messages/flags/narrow', { ...everything, narrow: [['channel', name]], op: 'add' })).body.updated_count, 6);
  assert.is((await iago.patch(`/messages/${ids[1]}`, { topic: 'renamed', propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: false })).status, 200);
  assert.is((await iago.delete(`/messages/${ids[0]}`)).status, 200);
  const latest = Number((await iago.post('/messages', { type: 'stream', to: name, topic: 'even', content: 'one more' })).body.id);
  const queue = await register(cordelia, { event_types: ['update_message_flags'] });
  const unread = await cordelia.post('/messages/flags/narrow', { ...everything, op: 'remove' });
  assert.equal([unread.body.first_processed_id, unread.body.last_processed_id, unread.body.updated_count], [ids[1], latest, 5], 'the deleted message is gone; the new one was unread already');
  const [event] = (await cordelia.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assertEventMatchesReference(event!);
  const topics = Object.fromEntries(Object.entries(event!.message_details as Record<string, { stream_id: number; topic: string }>).map(([id, details]) => [id, `${details.stream_id}:${details.topic}`]));
  const expected = Object.fromEntries(ids.slice(1).map((id, i) => [String(id), `${channelId}:${i % 2 === 0 ? 'renamed' : 'even'}`]));
  assert.equal(topics, expected);
  const renamed = await cordelia.post('/messages/flags/narrow', { ...everything, narrow: [['channel', name], ['topic', 'renamed']], op: 'add' });
  assert.equal([renamed.body.processed_count, renamed.body.first_processed_id], [3, ids[1]]);
  const channelWindow = await cordelia.post('/messages/flags/narrow', { ...everything, narrow: [['channel', name]], op: 'add' });
  assert.equal([channelWindow.body.processed_count, channelWindow.body.updated_count, channelWindow.body.last_processed_id], [6, 3, latest]);
});

flags('endpoint 9: excluding the anchor inside a range is refused; windows are clamped as Zulip clamps them', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const middle = await hamlet.post('/messages/flags/narrow', { anchor: 'newest', include_anchor: false, num_before: 1, num_after: 1, narrow: [], op: 'add', flag: 'read' });
  assert.equal([middle.status, middle.body.msg], [400, 'The anchor can only be excluded at an end of the range']);
  assert.is((await hamlet.post('/messages/flags/narrow', { anchor: 'newest', include_anchor: false, num_before: 5, num_after: 0, narrow: [], op: 'add', flag: 'read' })).status, 200);
  assert.equal(clampWindow(10_000, 10_000), { numBefore: 2500, numAfter: 2500 });
  assert.equal(clampWindow(10_000, 0), { numBefore: 5000, numAfter: 0 });
  assert.equal(clampWindow(100, 10_000), { numBefore: 100, numAfter: 4900 });
  assert.equal(clampWindow(4000, 3000), { numBefore: 2500, numAfter: 2500 });
  assert.is((await hamlet.post('/messages/flags/narrow', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [['channel', 'Atlantis']], op: 'add', flag: 'read' })).status, 400);
});

flags('the event goes to the acting user only; register + events == a fresh register (unread state)', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { name, ids } = await freshChannel(iago, ['iago@zulip.com', 'prospero@zulip.com', 'othello@zulip.com'], 4);
  const direct = Number((await othello.post('/messages', { type: 'private', to: [Number((await prospero.get('/users/me')).body.user_id)], content: 'psst @**Prospero from The Tempest**' })).body.id);
  const before = await register(prospero, { fetch_event_types: ['message'], event_types: ['update_message_flags', 'message'] });
  const watcher = await register(othello, { event_types: ['update_message_flags'] });
  await prospero.post('/messages/flags', { messages: [ids[0], direct], op: 'add', flag: 'read' });
  await prospero.post('/messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [['channel', name]], op: 'add', flag: 'read' });
  await prospero.post('/messages/flags', { messages: [ids[2], direct], op: 'remove', flag: 'read' });
  await prospero.post('/messages/flags', { messages: [ids[3]], op: 'add', flag: 'starred' });
  const events = (await prospero.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => `${event.op}:${event.flag}`), ['add:read', 'add:read', 'remove:read', 'add:starred']);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal((await othello.get('/events', { queue_id: watcher.queueId, last_event_id: -1, dont_block: true })).body.events, []);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(prospero, { fetch_event_types: ['message'] })).state));
});

flags('register lists the starred messages of every conversation by ID, and the unread ones by conversation', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const a = await freshChannel(iago, ['iago@zulip.com', 'desdemona@zulip.com'], 3);
  const b = await freshChannel(iago, ['iago@zulip.com', 'desdemona@zulip.com'], 3);
  const iagoId = Number((await iago.get('/users/me')).body.user_id);
  const direct = Number((await iago.post('/messages', { type: 'private', to: [Number((await desdemona.get('/users/me')).body.user_id)], content: 'dm' })).body.id);
  // Starred newest conversation first, to show the list is by ID rather than by when or where.
  for (const id of [direct, b.ids[1], a.ids[0]]) await desdemona.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' });
  await desdemona.post('/messages/flags', { messages: [a.ids[1]], op: 'add', flag: 'read' });
  const { state } = await register(desdemona, { fetch_event_types: ['message', 'starred_messages'] });
  assertMatchesReference('POST /register', state);
  const starred = state.starred_messages as number[];
  assert.equal(starred.filter((id) => [...a.ids, ...b.ids, direct].includes(id)), [a.ids[0], b.ids[1], direct]);
  assert.equal(starred, [...starred].sort((x, y) => x - y));
  const unread = state.unread_msgs as { streams: { stream_id: number; topic: string; unread_message_ids: number[] }[]; pms: { other_user_id: number; unread_message_ids: number[] }[] };
  const ofChannel = async (name: string) => {
    const channelId = Number((await desdemona.get('/get_stream_id', { stream: name })).body.stream_id);
    return Object.fromEntries(unread.streams.filter((entry) => entry.stream_id === channelId).map((entry) => [entry.topic, entry.unread_message_ids]));
  };
  assert.equal(await ofChannel(a.name), { even: [a.ids[0], a.ids[2]] });
  assert.equal(await ofChannel(b.name), { even: [b.ids[0], b.ids[2]], odd: [b.ids[1]] });
  assert.ok(unread.pms.find((entry) => entry.other_user_id === iagoId)?.unread_message_ids.includes(direct));
  assert.is(state.max_message_id, direct);
});

flags('mark as read: a topic, a channel, everything', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { name, ids } = await freshChannel(iago, ['iago@zulip.com', 'othello@zulip.com'], 4);
  const channelId = Number((await othello.get('/get_stream_id', { stream: name })).body.stream_id);
  const direct = Number((await iago.post('/messages', { type: 'private', to: [Number((await othello.get('/users/me')).body.user_id)], content: 'dm' })).body.id);
  const unread = async () => ((await othello.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: [['is', 'unread']] })).body.messages as { id: number }[]).map((m) => m.id);
  const topic = await othello.post('/mark_topic_as_read', { stream_id: channelId, topic_name: 'ODD' });
  assertMatchesReference('POST /mark_topic_as_read', topic.body);
  assert.not.ok((await unread()).some((id) => id === ids[1] || id === ids[3]));
  assert.ok((await unread()).includes(ids[0]!));
  assertMatchesReference('POST /mark_stream_as_read', (await othello.post('/mark_stream_as_read', { stream_id: channelId })).body);
  assert.not.ok((await unread()).some((id) => ids.includes(id)));
  assert.ok((await unread()).includes(direct));
  const all = await othello.post('/mark_all_as_read');
  assertMatchesReference('POST /mark_all_as_read', all.body);
  assert.equal(await unread(), []);
  assert.is((await othello.post('/mark_stream_as_read', { stream_id: 987654 })).body.msg, 'Invalid channel ID');
});

flags('the flag endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/messages/flags'],
    ['POST', '/messages/flags/narrow'],
    ['POST', '/mark_all_as_read'],
    ['POST', '/mark_stream_as_read'],
    ['POST', '/mark_topic_as_read'],
  ]);
});

flags.run();
