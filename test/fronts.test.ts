// The realm thread serving two fronts (threads that serve clients, each with its own event queues,
// here both in one process on ports of their own): a write through either reaches the queues of
// both, in the realm's order, the sender's own event with its local ID wherever its queue is; a
// queue on either counts for the realms (all_public_streams, and being connected: no push); register
// + events == a fresh register on the second front; a queue is read and deleted through either
// front (its ID names the front that holds it, which answers); a deactivated user's queues go on
// every front; a graceful restart gives each front its own queues back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../src/cli/processes.js';
import type { ApiClient } from './helpers/client.js';
import { CloseCode } from '../src/events/closeCodes.js';
import { applyEvent, comparable, register, StreamClient, type Event } from './helpers/events.js';
import { devClient, tempDataDir } from './helpers/operator.js';
import { spawnScript, type ServerProcess } from './helpers/process.js';
import { open, registerDevice } from './helpers/pushDevices.js';
import { FakeRelay } from './helpers/relay.js';
import { waitFor } from './helpers/server.js';

const script = new URL('./fixtures/twoFronts.js', import.meta.url).pathname;
const dataDir = tempDataDir('parley-fronts-');
let frontPort: number;
let server: ServerProcess;
let relay: FakeRelay;
/** The main front's URL, and the second front's. */
let urls: [string, string];

async function start(): Promise<void> {
  server = await spawnScript(script, { PARLEY_PUSH_RELAY_URL: relay.url, PARLEY_PUSH_RELAY_CREDENTIALS: 'uuid:key', PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development', PARLEY_HOST: '127.0.0.1', PARLEY_PORT: '0', PARLEY_RATE_LIMITS: 'false', PARLEY_THREADS: '3', FRONT_PORT: String(frontPort) });
  urls = [server.baseUrl, `http://127.0.0.1:${frontPort}`];
}

async function stop(): Promise<void> {
  server.child.kill('SIGTERM');
  assert.is(await server.exited, 0);
}

test.before(async () => {
  frontPort = await freePort();
  relay = await FakeRelay.start();
  await start();
});

test.after(async () => {
  await stop();
  await relay.close();
});

const eventsNow = async (client: ApiClient, queueId: string): Promise<Event[]> => {
  const response = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return (response.body.events as Event[]).filter((event) => event.type !== 'heartbeat');
};

const messageIds = (events: Event[]): number[] => events.filter((event) => event.type === 'message').map((event) => (event.message as { id: number }).id);

test("writes through either front reach both fronts' queues in the realm's order; the sender's event has its local ID on the front that holds its queue", async () => {
  const [hamletA, hamletB, iagoB] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'hamlet@zulip.com'), devClient(urls[1], 'iago@zulip.com')]);
  const onA = await register(hamletA, { event_types: ['message'] });
  const onB = await register(iagoB, { event_types: ['message'] });
  // Hamlet's queue is on the main front; he writes through the second.
  const own = await hamletB.post('/messages', { type: 'stream', to: 'Verona', topic: 'fronts', content: 'through the second front', queue_id: onA.queueId, local_id: '3.5' });
  assert.is(own.status, 200, JSON.stringify(own.body));
  const [mine] = await eventsNow(hamletA, onA.queueId);
  assert.equal([(mine!.message as { id: number }).id, mine!.local_message_id], [own.body.id, '3.5']);
  const [theirs] = await eventsNow(iagoB, onB.queueId);
  assert.is((theirs!.message as { id: number }).id, own.body.id);
  assert.not.ok('local_message_id' in theirs!);

  const sent = await Promise.all(
    Array.from({ length: 30 }, async (_, n) => {
      const response = await (n % 2 === 0 ? hamletA : iagoB).post('/messages', { type: 'stream', to: 'Verona', topic: 'fronts', content: `burst ${n}` });
      assert.is(response.status, 200, JSON.stringify(response.body));
      return Number(response.body.id);
    }),
  );
  const inOrder = [own.body.id as number, ...sent.sort((a, b) => a - b)];
  assert.equal(messageIds(await eventsNow(hamletA, onA.queueId)), inOrder, 'the main front');
  assert.equal(messageIds(await eventsNow(iagoB, onB.queueId)), inOrder, 'the second front');
});

test('an all_public_streams queue on the second front counts for the realm: it gets public messages written through the main front', async () => {
  const [iagoA, iagoB] = await Promise.all([devClient(urls[0], 'iago@zulip.com'), devClient(urls[1], 'iago@zulip.com')]);
  const othelloA = await devClient(urls[0], 'othello@zulip.com');
  assert.is((await iagoA.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Fronts public' }]), principals: JSON.stringify(['othello@zulip.com']) })).status, 200);
  assert.is((await iagoA.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['Fronts public']) })).status, 200);
  const { queueId } = await register(iagoB, { event_types: ['message'], all_public_streams: true });
  const sent = await othelloA.post('/messages', { type: 'stream', to: 'Fronts public', topic: 'open', content: 'for anyone who follows every channel' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assert.equal(messageIds(await eventsNow(iagoB, queueId)), [sent.body.id]);
});

test('a queue on the second front makes its user connected for the realm: no push for them while it lasts, with online push off', async () => {
  const [hamletA, othelloB] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'othello@zulip.com')]);
  const othelloId = Number((await othelloB.get('/users/me')).body.user_id);
  const phone = await registerDevice(othelloB, 9001);
  assert.is((await othelloB.patch('/settings', { enable_online_push_notifications: false })).status, 200);
  const notified = () =>
    relay.requests.flatMap((request) => ((request.body.devices ?? []) as { push_account_id: number; encrypted_data: string }[]).filter((device) => device.push_account_id === phone.pushAccountId)).map((device) => open(phone, device.encrypted_data).message_id);
  const direct = async (content: string) => {
    const response = await hamletA.post('/messages', { type: 'direct', to: JSON.stringify([othelloId]), content });
    assert.is(response.status, 200, JSON.stringify(response.body));
    return Number(response.body.id);
  };
  const { queueId } = await register(othelloB, { event_types: ['message'] });
  const whileConnected = await direct('while your queue is on the second front');
  assert.is((await othelloB.delete('/events', { queue_id: queueId })).status, 200);
  const afterwards = await direct('once it is gone');
  await waitFor(() => notified().includes(afterwards));
  assert.not.ok(notified().includes(whileConnected));
});

test('register + events == a fresh register on the second front, the changes made through the main one, and == a fresh register on the main front (one server_generation)', async () => {
  const [hamletA, hamletB, iagoA, othelloA] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'hamlet@zulip.com'), devClient(urls[0], 'iago@zulip.com'), devClient(urls[0], 'othello@zulip.com')]);
  const hamletId = Number((await hamletB.get('/users/me')).body.user_id);
  const options = { client_gravatar: false, include_subscribers: true };
  const registered = await register(hamletB, options);
  const ok = async (response: Promise<{ status: number; body: Record<string, unknown> }>) => assert.is((await response).status, 200, JSON.stringify((await response).body));
  await ok(iagoA.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Fronts sequence' }]), principals: JSON.stringify([hamletId]) }));
  await ok(othelloA.post('/messages', { type: 'private', to: JSON.stringify([hamletId]), content: 'across fronts' }));
  await ok(othelloA.patch('/settings', { full_name: 'Othello across fronts' }));
  await ok(iagoA.post('/messages', { type: 'stream', to: 'Fronts sequence', topic: 'hello', content: '@**King Hamlet** hello' }));
  const received = await eventsNow(hamletB, registered.queueId);
  assert.ok(received.length >= 4, `got ${received.length} events`);
  for (const event of received) applyEvent(registered.state, event);
  assert.equal(comparable(registered.state), comparable((await register(hamletB, options)).state));
  // A client registering again may land on the other front: the same server, not a restarted one.
  assert.equal(comparable(registered.state), comparable((await register(hamletA, options)).state));
});

test("a queue is read and deleted through whichever front a client's connection lands on: the front its ID names answers", async () => {
  const [hamletA, hamletB, iagoB] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'hamlet@zulip.com'), devClient(urls[1], 'iago@zulip.com')]);
  const onA = await register(hamletA, { event_types: ['message'] });
  const onB = await register(hamletB, { event_types: ['message'] });
  assert.ok(!onA.queueId.includes('-') && onB.queueId.endsWith('-1'), `queue IDs name their front: ${onA.queueId}, ${onB.queueId}`);
  // A long-poll through the second front waits on the main front's queue, and returns the message.
  const waiting = hamletB.get('/events', { queue_id: onA.queueId, last_event_id: -1 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const sent = await iagoB.post('/messages', { type: 'stream', to: 'Verona', topic: 'relayed', content: 'to a queue on the other front' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const polled = await waiting;
  assert.is(polled.status, 200, JSON.stringify(polled.body));
  assert.equal([messageIds(polled.body.events as Event[]), polled.body.queue_id], [[sent.body.id], onA.queueId]);
  // The other way, without waiting; and acknowledged events are gone wherever the queue is read.
  const mainSide = await hamletA.get('/events', { queue_id: onB.queueId, last_event_id: -1, dont_block: true });
  assert.equal(messageIds(mainSide.body.events as Event[]), [sent.body.id]);
  const lastId = (polled.body.events as Event[]).at(-1)!.id;
  assert.equal((await hamletA.get('/events', { queue_id: onA.queueId, last_event_id: lastId, dont_block: true })).body.events, []);
  // Refusals come back as the holding front made them: another user's queue, an unknown one.
  for (const [client, queueId] of [[iagoB, onA.queueId], [hamletA, `${'0'.repeat(24)}-1`]] as const) {
    const refused = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    assert.equal([refused.status, refused.body.code, refused.body.queue_id], [400, 'BAD_EVENT_QUEUE_ID', queueId]);
  }
  // Deleted through the other front: gone on both.
  assert.is((await hamletB.delete('/events', { queue_id: onA.queueId })).status, 200);
  for (const client of [hamletA, hamletB]) assert.is((await client.get('/events', { queue_id: onA.queueId, last_event_id: -1, dont_block: true })).body.code, 'BAD_EVENT_QUEUE_ID');
});

test("the event WebSocket attaches through either front to a queue the other holds: events, acknowledgements, refusals and the queue's deletion cross", async () => {
  const [hamletA, iagoB] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'iago@zulip.com')]);
  const { queueId } = await register(hamletA, { event_types: ['message', 'update_message_flags'] });
  const send = async (n: number) => Number((await iagoB.post('/messages', { type: 'stream', to: 'Verona', topic: 'socket', content: `over a socket on the other front ${n}` })).body.id);
  // One message is in the queue before the socket attaches: it comes first.
  const before = await send(0);
  const stream = await StreamClient.open(`${urls[1].replace('http', 'ws')}/api/v1/events/socket`, hamletA.authHeader());
  try {
    stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
    await stream.until((client) => client.frames.some((frame) => frame.control === 'attached'));
    const sent = await Promise.all([1, 2, 3].map(send));
    await stream.until((client) => messageIds(client.events()).length === 4);
    assert.equal(messageIds(stream.events()), [before, ...sent.sort((a, b) => a - b)]);
    // An event whose field is held as JSON text (message_details) crosses as the value it encodes.
    const verona = Number((await hamletA.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
    for (const op of ['add', 'remove']) assert.is((await hamletA.post('/messages/flags', { op, flag: 'read', messages: JSON.stringify([before]) })).status, 200);
    await stream.until((client) => client.events().some((event) => event.type === 'update_message_flags' && event.op === 'remove'));
    const unread = stream.events().find((event) => event.type === 'update_message_flags' && event.op === 'remove')!;
    assert.equal(unread.message_details, { [String(before)]: { type: 'stream', stream_id: verona, topic: 'socket' } });
    // The acknowledgement reaches the queue where it is: nothing is left to long-poll.
    stream.send({ op: 'ack', last_event_id: stream.events().at(-1)!.id });
    const left = async () => (await hamletA.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
    const deadline = Date.now() + 5000;
    while ((await left()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await left(), []);
    // The queue deleted where it is closes the socket on the other front, as one front does (4004).
    assert.is((await hamletA.delete('/events', { queue_id: queueId })).status, 200);
    await stream.until((client) => client.closed !== undefined);
    assert.is(stream.closed!.code, CloseCode.badEventQueueId);
  } finally {
    stream.socket.close();
  }
  // Another user's queue is refused as one front refuses it.
  const { queueId: iagos } = await register(iagoB, { event_types: ['message'] });
  const intruder = await StreamClient.open(`${urls[0].replace('http', 'ws')}/api/v1/events/socket`, hamletA.authHeader());
  intruder.send({ op: 'attach', queue_id: iagos, last_event_id: -1 });
  await intruder.until((client) => client.closed !== undefined);
  assert.equal([intruder.frames[0]!.code, intruder.closed!.code], ['BAD_EVENT_QUEUE_ID', CloseCode.badEventQueueId]);
});

test("a deactivated user's queues are deleted on every front: an event socket on either, attached to a queue on the other, closes as for a deleted queue", async () => {
  const iago = await devClient(urls[0], 'iago@zulip.com');
  const email = 'leaving@zulip.com';
  const created = await iago.post('/users', { email, full_name: 'Leaving', password: 'secret-pw' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const clients = await Promise.all(urls.map((url) => devClient(url, email)));
  const queueIds = await Promise.all(clients.map(async (client) => (await register(client, { event_types: ['message'] })).queueId));
  const streams = await Promise.all(urls.map((url) => StreamClient.open(`${url.replace('http', 'ws')}/api/v1/events/socket`, clients[0]!.authHeader())));
  try {
    streams.forEach((stream, front) => stream.send({ op: 'attach', queue_id: queueIds[1 - front]!, last_event_id: -1 }));
    for (const stream of streams) await stream.until((client) => client.frames.some((frame) => frame.control === 'attached'));
    assert.is((await iago.delete(`/users/${Number(created.body.user_id)}`)).status, 200);
    for (const stream of streams) await stream.until((client) => client.closed !== undefined);
    assert.equal(
      streams.map((stream) => stream.closed!.code),
      [CloseCode.badEventQueueId, CloseCode.badEventQueueId],
    );
  } finally {
    for (const stream of streams) stream.socket.close();
  }
});

test('a graceful restart gives each front its own queues back, with the events they held', async () => {
  const [hamletA, iagoB] = await Promise.all([devClient(urls[0], 'hamlet@zulip.com'), devClient(urls[1], 'iago@zulip.com')]);
  const onA = await register(hamletA, { event_types: ['message'] });
  const onB = await register(iagoB, { event_types: ['message'] });
  const sent = await hamletA.post('/messages', { type: 'stream', to: 'Verona', topic: 'restart', content: 'before the restart' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  await stop();
  await start();
  for (const [email, url, queue] of [['hamlet@zulip.com', urls[0], onA], ['iago@zulip.com', urls[1], onB]] as const) {
    const events = await eventsNow(await devClient(url, email), queue.queueId);
    assert.equal(messageIds(events), [sent.body.id], `${email}'s queue`);
    assert.ok(events.some((event) => event.type === 'restart'), `${email}'s queue heard of the restart`);
  }
});

test.run();
