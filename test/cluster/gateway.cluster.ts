// Any node serves any realm: register on one node, send on another, and the event arrives on the
// first node's long-poll and on a WebSocket attached there; reads and flags agree on every node.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCluster } from '../helpers/cluster.js';
import { register, StreamClient, pollEvents, type Event } from '../helpers/events.js';

test('register on B, send on A: the event reaches B by long-poll and WebSocket; every node reads the same', async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
    const hamletOnB = await cluster.client(b, 'hamlet@zulip.com');
    const iagoOnA = await cluster.client(a, 'iago@zulip.com');
    const polled = await register(hamletOnB, { event_types: ['message', 'update_message_flags'] });
    const streamed = await register(hamletOnB, { event_types: ['message'] });
    const socket = await StreamClient.open(`${b.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, hamletOnB.authHeader());
    socket.send({ op: 'attach', queue_id: streamed.queueId, last_event_id: -1 });

    const sent = await iagoOnA.post('/messages', { type: 'stream', to: 'Verona', topic: 'cluster', content: 'across nodes' });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const [event] = await pollEvents(hamletOnB, polled.queueId, 1);
    assert.equal([event!.type, (event!.message as { id: number }).id], ['message', sent.body.id]);
    await socket.until((s) => s.events().length >= 1);
    assert.is((socket.events()[0] as Event & { message: { id: number } }).message.id, sent.body.id);
    socket.close();

    // Starred on B, seen so on A; the same window on both.
    assert.is((await hamletOnB.post('/messages/flags', { op: 'add', flag: 'starred', messages: [sent.body.id] })).status, 200);
    const hamletOnA = await cluster.client(a, 'hamlet@zulip.com');
    const window = async (client: typeof hamletOnA) => (await client.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0 })).body.messages as { id: number; flags: string[] }[];
    const [onA, onB] = [await window(hamletOnA), await window(hamletOnB)];
    assert.equal(onA, onB);
    assert.ok(onA.find((message) => message.id === sent.body.id)?.flags.includes('starred'));
  } finally {
    await cluster.stop();
  }
});

test("a message event reaches another node's queues in each client's variant (HTML or Markdown, avatar or not) as the owner's own queues get it", async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
    const variants = [true, false].flatMap((apply_markdown) => [true, false].map((client_gravatar) => ({ apply_markdown, client_gravatar })));
    const onA = await cluster.client(a, 'hamlet@zulip.com');
    const onB = await cluster.client(b, 'hamlet@zulip.com');
    const queues = await Promise.all([onA, onB].flatMap((client) => variants.map(async (variant) => ({ client, queue: await register(client, { event_types: ['message'], ...variant }) }))));
    const sent = await (await cluster.client(a, 'iago@zulip.com')).post('/messages', { type: 'stream', to: 'Verona', topic: 'variants', content: 'Some **bold** text' });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const events = await Promise.all(queues.map(async ({ client, queue }) => (await pollEvents(client, queue.queueId, 1))[0]!.message as { content: string; avatar_url: string | null }));
    const [ownerSide, gatewaySide] = [events.slice(0, 4), events.slice(4)];
    assert.equal(gatewaySide, ownerSide);
    assert.equal(ownerSide.map((message) => message.content), ['<p>Some <strong>bold</strong> text</p>', '<p>Some <strong>bold</strong> text</p>', 'Some **bold** text', 'Some **bold** text']);
  } finally {
    await cluster.stop();
  }
});

test.run();
