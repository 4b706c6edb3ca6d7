// The WebSocket event stream: authentication at the upgrade, attaching to a queue, ordered
// delivery, resuming after a dropped socket without losing or repeating an event, acknowledgement,
// msgpack frames, and the documented close codes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pack } from 'msgpackr';
import { CloseCode } from '../src/events/closeCodes.js';
import type { ApiClient } from './helpers/client.js';
import { register, StreamClient, type Event } from './helpers/events.js';
import { rejects } from './helpers/assert.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const socket = suite<{ server: TestServer }>('event socket');

socket.before(async (context) => {
  context.server = await startTestServer();
});
socket.after(async ({ server }) => server.stop());

const socketUrl = (server: TestServer, query = ''): string => `${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket${query}`;
const open = (server: TestServer, client: ApiClient, query = ''): Promise<StreamClient> => StreamClient.open(socketUrl(server, query), client.authHeader());

let created = 0;
async function createUser(server: TestServer): Promise<string> {
  const iago = await server.as('iago@zulip.com');
  const email = `sock${++created}@zulip.com`;
  const response = await iago.post('/users', { email, full_name: `Sock ${created}`, password: 'secret-pw' });
  assert.is(response.status, 200);
  return email;
}

const emails = (events: Event[]): string[] => events.map((event) => (event.person as { email: string }).email);

function assertIncreasing(ids: number[]): void {
  ids.forEach((id, i) => i > 0 && assert.ok(id > ids[i - 1]!, `event IDs increase: ${ids.join(', ')}`));
}

socket('the upgrade needs credentials: none or wrong ones are refused with 401', async ({ server }) => {
  await rejects(() => StreamClient.open(socketUrl(server)), /upgrade refused: 401/);
  const wrong = { Authorization: `Basic ${Buffer.from('hamlet@zulip.com:wrongkey').toString('base64')}` };
  await rejects(() => StreamClient.open(socketUrl(server), wrong), /upgrade refused: 401/);
  await rejects(() => StreamClient.open(socketUrl(server, '?token=made-up')), /upgrade refused: 401/);
});

socket('attach, then every later event arrives in order, one JSON frame each', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId, state } = await register(hamlet, { event_types: ['realm_user'] });
  const stream = await open(server, hamlet);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.frames.length >= 1);
  assert.equal(stream.frames[0], { control: 'attached', queue_id: queueId, last_event_id: state.last_event_id });
  const first = await createUser(server);
  const second = await createUser(server);
  await stream.until((s) => s.events().length >= 2);
  assertIncreasing(stream.events().map((event) => event.id));
  assert.equal(emails(stream.events()), [first, second]);
  stream.close();
});

socket('a dropped socket resumes from its last event ID: nothing lost, nothing repeated', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['realm_user'] });
  const first = await open(server, hamlet);
  first.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  const before = [await createUser(server), await createUser(server)];
  await first.until((s) => s.events().length >= 2);
  first.socket.terminate();
  await first.until((s) => s.closed !== undefined);
  const during = [await createUser(server), await createUser(server)];

  const second = await open(server, hamlet);
  second.send({ op: 'attach', queue_id: queueId, last_event_id: first.events().at(-1)!.id });
  const after = [await createUser(server)];
  await second.until((s) => s.events().length >= 3);
  const all = [...first.events(), ...second.events()];
  assertIncreasing(all.map((event) => event.id));
  assert.equal(emails(all), [...before, ...during, ...after], 'every event exactly once, in order');
  second.close();
});

socket('a browser authenticates with a single-use token from POST /events/socket_token', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const issued = await othello.post('/events/socket_token');
  assert.is(issued.status, 200);
  assert.is(issued.body.expires_in, 30);
  const token = String(issued.body.token);
  const { queueId } = await register(othello, { event_types: ['realm_user'] });
  const stream = await StreamClient.open(socketUrl(server, `?token=${encodeURIComponent(token)}`));
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.frames.length >= 1);
  assert.is(stream.frames[0]!.control, 'attached');
  stream.close();
  await rejects(() => StreamClient.open(socketUrl(server, `?token=${encodeURIComponent(token)}`)), /upgrade refused: 401/, 'a token works once');
});

socket('msgpack: binary frames both ways when the client asks for them', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId, state } = await register(hamlet, { event_types: ['realm_user'] });
  const stream = await open(server, hamlet, '?format=msgpack');
  stream.socket.send(pack({ op: 'attach', queue_id: queueId, last_event_id: -1 }));
  const email = await createUser(server);
  await stream.until((s) => s.events().length >= 1);
  assert.equal(stream.frames[0], { control: 'attached', queue_id: queueId, last_event_id: state.last_event_id });
  assert.equal(emails(stream.events()), [email]);
  stream.close();
});

socket('marking messages unread: JSON and msgpack frames carry the same message_details', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const sent = async (body: Record<string, unknown>) => Number((await othello.post('/messages', body)).body.id);
  const channelId = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const plain = await sent({ type: 'stream', to: 'Verona', topic: 'details', content: 'plain' });
  const mention = await sent({ type: 'stream', to: 'Verona', topic: 'details', content: 'hi @**King Hamlet**' });
  const direct = await sent({ type: 'direct', to: JSON.stringify(['hamlet@zulip.com']), content: 'psst' });
  const ids = [plain, mention, direct];
  assert.is((await hamlet.post('/messages/flags', { messages: ids, op: 'add', flag: 'read' })).status, 200);
  const streams = await Promise.all(
    ['', '?format=msgpack'].map(async (query) => {
      const { queueId } = await register(hamlet, { event_types: ['update_message_flags'] });
      const stream = await open(server, hamlet, query);
      stream.socket.send(query === '' ? JSON.stringify({ op: 'attach', queue_id: queueId, last_event_id: -1 }) : pack({ op: 'attach', queue_id: queueId, last_event_id: -1 }));
      await stream.until((s) => s.frames.length >= 1);
      return stream;
    }),
  );
  assert.is((await hamlet.post('/messages/flags', { messages: ids, op: 'remove', flag: 'read' })).status, 200);
  const othelloId = Number((await othello.get('/users/me')).body.user_id);
  const expected = {
    [plain]: { type: 'stream', stream_id: channelId, topic: 'details' },
    [mention]: { type: 'stream', stream_id: channelId, topic: 'details', mentioned: true },
    [direct]: { type: 'private', user_ids: [othelloId] },
  };
  for (const stream of streams) {
    await stream.until((s) => s.events().length >= 1);
    const [event] = stream.events();
    assert.equal([event!.op, event!.messages], ['remove', ids]);
    assert.equal(event!.message_details, expected);
    stream.close();
  }
});

socket("another user's queue is refused with BAD_EVENT_QUEUE_ID and close code 4004", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { queueId } = await register(hamlet);
  const stream = await open(server, othello);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.closed !== undefined);
  assert.is(stream.frames[0]!.code, 'BAD_EVENT_QUEUE_ID');
  assert.is(stream.closed!.code, CloseCode.badEventQueueId);
});

socket('deleting the queue closes its socket with 4004', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet);
  const stream = await open(server, hamlet);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.frames.length >= 1);
  assert.is((await hamlet.delete('/events', { queue_id: queueId })).status, 200);
  await stream.until((s) => s.closed !== undefined);
  assert.is(stream.closed!.code, CloseCode.badEventQueueId);
});

socket('a second consumer of the same queue replaces the first (4009)', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['realm_user'] });
  const first = await open(server, hamlet);
  first.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await first.until((s) => s.frames.length >= 1);
  const second = await open(server, hamlet);
  second.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await first.until((s) => s.closed !== undefined);
  assert.is(first.closed!.code, CloseCode.replaced);
  const email = await createUser(server);
  await second.until((s) => s.events().length >= 1);
  assert.equal(emails(second.events()), [email]);
  second.close();
});

socket('a frame that is not a control message closes the socket with 4000', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  for (const frame of ['not json', JSON.stringify({ op: 'dance' }), JSON.stringify({ op: 'ack', last_event_id: 3 })]) {
    const stream = await open(server, hamlet);
    stream.socket.send(frame);
    await stream.until((s) => s.closed !== undefined);
    assert.is(stream.closed!.code, CloseCode.badFrame, frame);
  }
});

socket('an ack prunes the queue like last_event_id does', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['realm_user'] });
  const stream = await open(server, hamlet);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await createUser(server);
  const second = await createUser(server);
  await stream.until((s) => s.events().length >= 2);
  stream.send({ op: 'ack', last_event_id: stream.events()[0]!.id });
  stream.close();
  await stream.until((s) => s.closed !== undefined);
  const polled = await hamlet.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.equal(emails(polled.body.events as Event[]), [second]);
});

socket.run();


const shutdown = suite('event socket at shutdown');

shutdown('a graceful shutdown closes attached sockets with 1001', async () => {
  const server = await startTestServer();
  const hamlet = await server.as('hamlet@zulip.com');
  const { queueId } = await register(hamlet);
  const stream = await open(server, hamlet);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.frames.length >= 1);
  const idle = await open(server, hamlet);
  await server.stop();
  await stream.until((s) => s.closed !== undefined);
  await idle.until((s) => s.closed !== undefined);
  assert.is(stream.closed!.code, CloseCode.goingAway);
  assert.is(idle.closed!.code, CloseCode.goingAway);
});

shutdown.run();
