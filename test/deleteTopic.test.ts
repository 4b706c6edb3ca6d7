// Deleting a topic (spec endpoint 10): administrators only, the empty-topic name, delete_message and
// first_message_id events. Batches with a time budget (complete: false, then the client repeats) are
// in the fault tier, test/faults/deleteTopicBatches.fault.ts: they need a topic of 1,001 messages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let counter = 0;
async function channelWith(iago: ApiClient, topics: string[]): Promise<{ id: number; messages: number[] }> {
  const name = `Topics ${++counter}`;
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: ['iago@zulip.com', 'hamlet@zulip.com'] });
  const id = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
  const messages: number[] = [];
  for (const topic of topics) messages.push(Number((await iago.post('/messages', { type: 'stream', to: id, topic, content: `in ${topic}` })).body.id));
  return { id, messages };
}
const topicIds = async (client: ApiClient, id: number, topic: string): Promise<number[]> =>
  ((await client.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [['channel', id], ['topic', topic]] })).body.messages as { id: number }[]).map((m) => m.id);

const deletion = suite<{ server: TestServer }>('delete topic');

deletion.before(async (context) => {
  context.server = await startTestServer();
});
deletion.after(async ({ server }) => server.stop());

deletion('administrators delete every message of a topic; other topics stay', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { id, messages } = await channelWith(iago, ['doomed', 'kept', 'Doomed', 'doomed']);
  const response = await iago.post(`/streams/${id}/delete_topic`, { topic_name: 'doomed' });
  assertMatchesReference('POST /streams/{stream_id}/delete_topic', response.body);
  assert.equal(response.body, { result: 'success', msg: '', complete: true });
  assert.equal(await topicIds(iago, id, 'doomed'), []);
  assert.equal(await topicIds(iago, id, 'kept'), [messages[1]]);
});

deletion('non-administrators get UNAUTHORIZED_PRINCIPAL and nothing is deleted', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { id, messages } = await channelWith(iago, ['mine']);
  const refused = await hamlet.post(`/streams/${id}/delete_topic`, { topic_name: 'mine' });
  assert.equal(refused.body, { result: 'error', code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
  assert.equal(await topicIds(iago, id, 'mine'), messages);
  assert.is((await iago.post('/streams/987654/delete_topic', { topic_name: 'x' })).body.msg, 'Invalid channel ID');
});

deletion('the empty-topic display name means the empty topic; the oldest going moves first_message_id', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const { id, messages } = await channelWith(iago, ['', 'later']);
  const options = { client_gravatar: false, include_subscribers: true };
  const before = await register(hamlet, options);
  assert.equal((await iago.post(`/streams/${id}/delete_topic`, { topic_name: 'general chat' })).body.complete, true);
  const events = (await hamlet.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.type), ['delete_message', 'stream']);
  assert.equal([events[0]!.message_ids, events[0]!.topic], [[messages[0]], '']);
  assert.equal([events[1]!.property, events[1]!.value], ['first_message_id', messages[1]]);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(hamlet, options)).state));
});

deletion.run();
