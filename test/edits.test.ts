// Editing messages and their history (spec endpoint 12): who may edit what, propagate_mode,
// the snapshots of the spec's table, recomputed mention flags, the update_message event.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, type TestServer } from './helpers/server.js';
import { TestClock } from './helpers/clock.js';

const edits = suite<{ server: TestServer }>('message edits and history');

edits.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
edits.after(async ({ server }) => server.stop());

let counter = 0;
const fresh = (prefix: string): string => `${prefix} ${++counter}`;
async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}
type Snapshot = Record<string, unknown> & { topic: string; content: string };
const history = async (client: ApiClient, id: number, params: Record<string, unknown> = {}): Promise<Snapshot[]> => {
  const response = await client.get(`/messages/${id}/history`, params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages/{message_id}/history', response.body);
  return response.body.message_history as Snapshot[];
};

edits('a never-edited message has one snapshot with only the five base fields', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'once', content: 'as written' });
  const [only, ...rest] = await history(hamlet, id);
  assert.equal(rest, []);
  assert.equal(Object.keys(only!).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal([only!.topic, only!.content, only!.user_id], ['once', 'as written', Number((await hamlet.get('/users/me')).body.user_id)]);
});

edits('message objects carry last_edit_timestamp for content edits and last_moved_timestamp for moves, not for resolving', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const topic = fresh('labels');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic, content: 'original' });
  const fetched = async () => {
    const response = await hamlet.get(`/messages/${id}`);
    assertMatchesReference('GET /messages/{message_id}', response.body);
    return response.body.message as { last_edit_timestamp?: number; last_moved_timestamp?: number };
  };
  assert.equal(Object.keys(await fetched()).filter((key) => key.startsWith('last_')), []);
  assert.is((await hamlet.patch(`/messages/${id}`, { topic: `✔ ${topic}` })).status, 200);
  assert.equal(Object.keys(await fetched()).filter((key) => key.startsWith('last_')), [], 'resolving is no move');
  assert.is((await hamlet.patch(`/messages/${id}`, { content: 'changed' })).status, 200);
  const edited = await fetched();
  assert.type(edited.last_edit_timestamp, 'number');
  assert.is(edited.last_moved_timestamp, undefined);
  assert.is((await hamlet.patch(`/messages/${id}`, { topic: `${topic} moved` })).status, 200);
  const moved = await fetched();
  assert.type(moved.last_moved_timestamp, 'number');
  assert.is(moved.last_edit_timestamp, edited.last_edit_timestamp);
  const [inWindow] = (await hamlet.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [{ operator: 'id', operand: id }] })).body.messages as { last_moved_timestamp?: number }[];
  assert.is(inWindow!.last_moved_timestamp, moved.last_moved_timestamp);
});

edits('content and topic edits record snapshots, oldest first, prev_* only for what changed', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'draft', content: 'first words' });
  const edited = await hamlet.patch(`/messages/${id}`, { content: 'second words' });
  assertMatchesReference('PATCH /messages/{message_id}', edited.body);
  assert.is((await hamlet.patch(`/messages/${id}`, { topic: 'final' })).status, 200);
  const snapshots = await history(hamlet, id);
  assert.equal(snapshots.map((snapshot) => [snapshot.topic, snapshot.content]), [['draft', 'first words'], ['draft', 'second words'], ['final', 'second words']]);
  assert.equal([snapshots[1]!.prev_content, snapshots[1]!.prev_rendered_content, 'prev_topic' in snapshots[1]!], ['first words', '<p>first words</p>', false]);
  assert.match(String(snapshots[1]!.content_html_diff), /highlight_text_inserted">second/);
  assert.equal([snapshots[2]!.prev_topic, 'prev_content' in snapshots[2]!], ['draft', false]);
});

edits('who may edit: content only by the sender; nothing to change; missing messages; disabled history', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'mine', content: 'mine' });
  assert.equal((await othello.patch(`/messages/${id}`, { content: 'hijacked' })).body.msg, "You don't have permission to edit this message");
  assert.is((await othello.patch(`/messages/${id}`, { topic: 'tidied' })).status, 200, 'members may retitle topics');
  assert.equal((await hamlet.patch(`/messages/${id}`, {})).body.msg, 'Nothing to change');
  assert.equal((await hamlet.patch('/messages/987654321', { content: 'x' })).body.msg, 'Invalid message(s)');
  assert.equal((await hamlet.get('/messages/987654321/history')).body.msg, 'Invalid message(s)');
  assert.match(String((await hamlet.patch(`/messages/${id}`, { topic: 't'.repeat(61) })).body.msg), /too long/);
  const realm = server.parley.realms.forHost('')!;
  await realm.ask('realm.setEditHistory', null, { visible: false });
  assert.equal((await hamlet.get(`/messages/${id}/history`)).body.msg, 'Message edit history is disabled in this organization');
  await realm.ask('realm.setEditHistory', null, { visible: true });
});

edits('edited content follows the rules of sent content: no NUL, cut at 10,000 characters with a note', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'long', content: 'short' });
  assert.equal((await hamlet.patch(`/messages/${id}`, { content: 'a\u0000b' })).body.msg, 'Message must not contain null bytes');
  assert.is((await hamlet.patch(`/messages/${id}`, { content: '\u00e9'.repeat(20_000) })).status, 200);
  const { content } = (await hamlet.get(`/messages/${id}`, { apply_markdown: false })).body.message as { content: string };
  assert.is([...content].length, 10_000);
  assert.ok(content.endsWith('\u00e9\n[message truncated]'), content.slice(-40));
});

edits('propagate_mode moves one, later or all messages of the topic; the empty-topic name reads back per allow_empty_topic_name', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const topic = fresh('thread');
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await send(iago, { type: 'stream', to: 'Denmark', topic, content: `m${i}` }));
  await iago.patch(`/messages/${ids[1]}`, { topic: 'later part', propagate_mode: 'change_later' });
  const topicOf = async (id: number) => ((await iago.get(`/messages/${id}`, { allow_empty_topic_name: true })).body.message as { subject: string }).subject;
  assert.equal([await topicOf(ids[0]!), await topicOf(ids[1]!), await topicOf(ids[2]!)], [topic, 'later part', 'later part']);
  await iago.patch(`/messages/${ids[2]}`, { topic: '', propagate_mode: 'change_all' });
  assert.equal([await topicOf(ids[1]!), await topicOf(ids[2]!)], ['', '']);
  assert.equal((await history(iago, ids[1]!)).at(-1)!.topic, 'general chat');
  assert.equal((await history(iago, ids[1]!, { allow_empty_topic_name: true })).at(-1)!.topic, '');
  const scotland = Number((await iago.get('/get_stream_id', { stream: 'Scotland' })).body.stream_id);
  const denmark = Number((await iago.get('/get_stream_id', { stream: 'Denmark' })).body.stream_id);
  await iago.patch(`/messages/${ids[0]}`, { stream_id: scotland });
  const moved = (await history(iago, ids[0]!)).at(-1)!;
  assert.equal([moved.stream, moved.prev_stream], [scotland, denmark]);
  const polonius = await server.as('polonius@zulip.com');
  const guestOwn = await send(polonius, { type: 'stream', to: 'Verona', topic: fresh('guest'), content: 'mine' });
  const refused = await polonius.patch(`/messages/${guestOwn}`, { stream_id: denmark });
  assert.equal([refused.status, refused.body.msg], [400, "You don't have permission to move this message"], 'guests are not in role:members');
});

edits('who may edit and move, and until when: Zulip\'s defaults, time limits and MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', async () => {
  const clock = new TestClock();
  const server = await startTestServer({ clock });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const iago = await server.as('iago@zulip.com');
    const polonius = await server.as('polonius@zulip.com');
    const state = (await register(hamlet, { fetch_event_types: ['realm'] })).state;
    assert.equal(
      [state.realm_allow_message_editing, state.realm_message_content_edit_limit_seconds, state.realm_move_messages_within_stream_limit_seconds, state.realm_move_messages_between_streams_limit_seconds],
      [true, 600, 259200, 259200],
    );
    const denmark = Number((await iago.get('/get_stream_id', { stream: 'Denmark' })).body.stream_id);
    const topic = fresh('limits');
    const old: number[] = [];
    for (let i = 0; i < 3; i++) old.push(await send(hamlet, { type: 'stream', to: 'Verona', topic, content: `old ${i}` }));
    const quietly = { send_notification_to_new_thread: false };
    assert.is((await polonius.patch(`/messages/${old[0]}`, { topic: `${topic} (guest)`, ...quietly })).status, 200, 'everyone may move topics by default');
    await polonius.patch(`/messages/${old[0]}`, { topic, ...quietly });

    clock.advance(11 * 60 * 1000);
    const late = await hamlet.patch(`/messages/${old[0]}`, { content: 'too late' });
    assert.equal([late.status, late.body.msg], [400, 'The time limit for editing this message has passed']);
    assert.is((await hamlet.patch(`/messages/${old[0]}`, { topic: `${topic} renamed`, propagate_mode: 'change_one', ...quietly })).status, 200, 'topics move for 3 days');
    await hamlet.patch(`/messages/${old[0]}`, { topic, propagate_mode: 'change_one', ...quietly });

    clock.advance(4 * 24 * 3600 * 1000 - 11 * 60 * 1000);
    const topicLate = await hamlet.patch(`/messages/${old[0]}`, { topic: 'x' });
    assert.equal([topicLate.status, topicLate.body.msg], [400, "The time limit for editing this message's topic has passed"]);
    const channelLate = await hamlet.patch(`/messages/${old[0]}`, { stream_id: denmark });
    assert.equal([channelLate.status, channelLate.body.msg], [400, "The time limit for editing this message's channel has passed"]);

    const recent: number[] = [];
    for (let i = 0; i < 2; i++) recent.push(await send(hamlet, { type: 'stream', to: 'Verona', topic, content: `new ${i}` }));
    const partial = await hamlet.patch(`/messages/${recent[1]}`, { topic: 'moved', propagate_mode: 'change_all' });
    assert.equal([partial.status, partial.body.code], [400, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED']);
    assert.equal(
      [partial.body.first_message_id_allowed_to_move, partial.body.total_messages_allowed_to_move, partial.body.total_messages_in_topic],
      [recent[0], 2, 5],
    );
    // The reference's schema for this error omits the fields its own example shows; they are added.
    const integer = { type: 'integer' };
    assertMatchesComponent('CodedError', partial.body, { properties: { first_message_id_allowed_to_move: integer, total_messages_allowed_to_move: integer, total_messages_in_topic: integer } });
    const topicOf = async (id: number) => ((await hamlet.get(`/messages/${id}`)).body.message as { subject: string }).subject;
    assert.is(await topicOf(recent[1]!), topic, 'nothing moved');
    assert.is((await hamlet.patch(`/messages/${recent[0]}`, { topic: 'moved', propagate_mode: 'change_later', ...quietly })).status, 200, 'the recent part may move');
    assert.is((await iago.patch(`/messages/${old[0]}`, { topic: 'moved', propagate_mode: 'change_all', ...quietly })).status, 200, 'administrators have no time limit');
    assert.equal(await Promise.all([...old, ...recent].map(topicOf)), ['moved', 'moved', 'moved', 'moved', 'moved']);
  } finally {
    await server.stop();
  }
});

edits('moving to another channel: rows for its subscribers, gone for the rest, notices in both threads, first_message_id', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);
  const secretName = fresh('secret');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: secretName }], invite_only: true, principals: [await idOf(iago), await idOf(hamlet), await idOf(othello)] });
  const secret = Number((await iago.get('/get_stream_id', { stream: secretName })).body.stream_id);
  const topic = fresh('plans');
  const ids = [await send(hamlet, { type: 'stream', to: 'Denmark', topic, content: 'one' }), await send(hamlet, { type: 'stream', to: 'Denmark', topic, content: 'two' })];
  const watchCordelia = await register(cordelia, { event_types: ['delete_message'] });
  const watchIago = await register(iago, { event_types: ['stream', 'message'], apply_markdown: false });

  const moved = await iago.patch(`/messages/${ids[0]}`, { stream_id: secret, propagate_mode: 'change_all', send_notification_to_old_thread: true });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  const flagsOf = async (client: ApiClient, id: number) => (await client.get(`/messages/${id}`)).body as { message?: { flags: string[] }; code?: string };
  assert.ok((await flagsOf(othello, ids[0]!)).message!.flags.includes('read'), 'a subscriber of the new channel gets the message, read');
  assert.is((await flagsOf(cordelia, ids[0]!)).code, 'BAD_REQUEST', 'not subscribed to the private channel: gone');
  const gone = (await cordelia.get('/events', { queue_id: watchCordelia.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(gone.map((event) => [event.type, event.message_ids]), [['delete_message', ids]]);
  for (const event of gone) assertEventMatchesReference(event);

  const events = await pollEvents(iago, watchIago.queueId, 3);
  const notices = events.filter((event) => event.type === 'message').map((event) => event.message as { content: string; display_recipient: string; subject: string });
  const iagoId = await idOf(iago);
  assert.equal(
    notices.map((notice) => [notice.display_recipient, notice.subject, notice.content]).sort(),
    [
      ['Denmark', topic, `This topic was moved to #**${secretName}>${topic}** by @_**Iago|${iagoId}**.`],
      [secretName, topic, `This topic was moved here from #**Denmark>${topic}** by @_**Iago|${iagoId}**.`],
    ],
  );
  const firstMessage = events.find((event) => event.type === 'stream' && event.property === 'first_message_id' && event.stream_id === secret);
  assert.is(firstMessage?.value, ids[0], "the new channel's oldest message is a moved one");

  const resolved = await iago.patch(`/messages/${ids[0]}`, { topic: `✔ ${topic}`, propagate_mode: 'change_all' });
  assert.is(resolved.status, 200);
  const [resolvedNotice] = (await pollEvents(iago, watchIago.queueId, 1, events.at(-1)!.id)).filter((event) => event.type === 'message');
  assert.is((resolvedNotice!.message as { content: string }).content, `@_**Iago|${iagoId}** has marked this topic as resolved.`);
});

edits('an edit recomputes mention flags and is announced; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: fresh('mentions'), content: 'hello' });
  const before = await register(cordelia, { fetch_event_types: ['message'], event_types: ['update_message', 'message'] });
  await hamlet.patch(`/messages/${id}`, { content: "hello @**Cordelia, Lear's daughter**" });
  await hamlet.patch(`/messages/${id}`, { topic: 'renamed', propagate_mode: 'change_all' });
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  // The move leaves the notification bot's notice in the new thread.
  assert.equal(events.map((event) => event.type), ['update_message', 'update_message', 'message']);
  assert.ok((events[0]!.flags as string[]).includes('mentioned'));
  for (const event of events) assertEventMatchesReference(event);
  assert.ok(((await cordelia.get(`/messages/${id}`)).body.message as { flags: string[] }).flags.includes('mentioned'));
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { fetch_event_types: ['message'] })).state));
});

edits('the edit endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['PATCH', '/messages/1'],
    ['GET', '/messages/1/history'],
  ]);
});

edits.run();
