// Editing messages and their history (spec endpoint 12): who may edit what, propagate_mode,
// the snapshots of the spec's table, recomputed mention flags, the update_message event.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const edits = suite<{ server: TestServer }>('message edits and history');

edits.before(async (context) => {
  context.server = await startTestServer();
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

edits('propagate_mode moves one, later or all messages of the topic; the empty-topic name reads back per allow_empty_topic_name', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const topic = fresh('thread');
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await send(iago, { type: 'stream', to: 'Denmark', topic, content: `m${i}` }));
  await iago.patch(`/messages/${ids[1]}`, { topic: 'later part', propagate_mode: 'change_later' });
  const topicOf = async (id: number) => ((await iago.get(`/messages/${id}`)).body.message as { subject: string }).subject;
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
  const hamlet = await server.as('hamlet@zulip.com');
  assert.is((await hamlet.patch(`/messages/${ids[0]}`, { stream_id: denmark })).status, 400, 'members do not move messages between channels');
});

edits('an edit recomputes mention flags and is announced; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: fresh('mentions'), content: 'hello' });
  const before = await register(cordelia, { fetch_event_types: ['message'], event_types: ['update_message'] });
  await hamlet.patch(`/messages/${id}`, { content: "hello @**Cordelia, Lear's daughter**" });
  await hamlet.patch(`/messages/${id}`, { topic: 'renamed', propagate_mode: 'change_all' });
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.type), ['update_message', 'update_message']);
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
