// Any node serves any realm: register on one node, send on another, and the event arrives on the
// first node's long-poll and on a WebSocket attached there; reads and flags agree on every node.
// The owner sends the realm's emissions to the other nodes only while one of them holds a queue.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBatches } from '../../src/cluster/batches.js';
import type { HeardBatch } from '../../src/events/queues.js';
import { subjects } from '../../src/cluster/connection.js';
import type { Emitted } from '../../src/events/types.js';
import { eventually, startCluster, withCluster, withNats } from '../helpers/cluster.js';
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

test('a node stopped and started again does not bring its queues back: their clients register again rather than miss what was sent meanwhile', async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
    const queue = await register(await cluster.client(b, 'hamlet@zulip.com'), { event_types: ['message'] });
    b.child.kill('SIGTERM');
    await b.exited;
    const sent = await (await cluster.client(a, 'iago@zulip.com')).post('/messages', { type: 'stream', to: 'Verona', topic: 'cluster', content: 'while B was down' });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const hamletOnB = await cluster.client(await cluster.restart(b), 'hamlet@zulip.com');
    const polled = await hamletOnB.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true });
    assert.equal([polled.status, polled.body.code], [400, 'BAD_EVENT_QUEUE_ID'], JSON.stringify(polled.body));
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

test("the owner sends a realm's emissions to other nodes only while one holds a queue of the realm; a queue registered there after some were not sent gets what follows its state", () =>
  withCluster(2, (cluster, owner, [gateway]) =>
    withNats(cluster, async (nc) => {
      const batches: { header: HeardBatch; emissions: Emitted[] }[] = [];
      nc.subscribe(subjects.allEvents, {
        callback: (error, message) => {
          if (!error) batches.push(...decodeBatches(message.data));
        },
      });
      await nc.flush();
      const iago = await cluster.client(owner, 'iago@zulip.com');
      const send = async (content: string) => {
        const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'bus', content });
        assert.is(sent.status, 200, JSON.stringify(sent.body));
        return sent.body.id as number;
      };
      /** Whether a send after this goes to no other node, which hears only where the realm stands
       * at the owner's next tick (an empty batch): the owner knows of no queue elsewhere. */
      const silent = async () => {
        const before = batches.length;
        const id = await send('no queue elsewhere');
        await eventually(async () => (batches.length > before ? true : undefined), 5000, 'the position told');
        const since = batches.slice(before);
        return since.every((batch) => batch.emissions.length === 0) ? id : undefined;
      };
      const hamletOnOwner = await cluster.client(owner, 'hamlet@zulip.com');
      const onOwner = await register(hamletOnOwner, { event_types: ['message'] });

      // Only the owner's queue: its own gets the message; the other nodes hear only its position.
      const first = await eventually(silent, 10_000, 'a send publishing nothing');
      assert.is(((await pollEvents(hamletOnOwner, onOwner.queueId, 1))[0]!.message as { id: number }).id, first);

      // A queue on the gateway: told to the owner before the register asks for its state, so every
      // emission after that state travels, and the gateway's queue gets the message.
      const hamletOnGateway = await cluster.client(gateway, 'hamlet@zulip.com');
      const onGateway = await register(hamletOnGateway, { event_types: ['message'] });
      const second = await send('a queue on the gateway');
      assert.is(((await pollEvents(hamletOnGateway, onGateway.queueId, 1))[0]!.message as { id: number }).id, second);
      // This test's own subscription hears the bus apart from the gateway, and may hear it later.
      await eventually(async () => (batches.some((batch) => batch.emissions.some((emission) => emission.event.type === 'message' && emission.event.message.id === second)) ? true : undefined), 5000, 'the message on the bus');

      // The gateway's queue deleted: the owner sends no emissions again.
      assert.is((await hamletOnGateway.delete('/events', { queue_id: onGateway.queueId })).status, 200);
      await eventually(silent, 20_000, 'the owner sending nothing again');

      // Registered again on the gateway, which heard nothing since: the batches no longer follow on
      // from the last it heard, and its new queue, whose state is after the emissions it lacks, gets
      // what follows.
      const again = await register(hamletOnGateway, { event_types: ['message'] });
      const third = await send('a queue on the gateway again');
      assert.equal(((await pollEvents(hamletOnGateway, again.queueId, 1))[0]!.message as { id: number }).id, third);
      // Each batch, or position told, is after the batch before.
      const positions = batches.map((batch) => [batch.header.from, batch.emissions.length] as const);
      assert.ok(
        positions.every(([from], index) => index === 0 || from >= positions[index - 1]![0] + positions[index - 1]![1]),
        `positions go on: ${positions.map(([from, count]) => `${from}+${count}`).join(', ')}`,
      );
    }),
  ));

test("a gateway's requests to the owner travel together, as few NATS messages as fit, each client gets its own answer, however big, and a queue there every message", () =>
  withCluster(2, (cluster, owner, [gateway]) =>
    withNats(cluster, async (nc) => {
      const iagoOnOwner = await cluster.client(owner, 'iago@zulip.com');
      // What the gateway asks of the realms' owner (a second subscriber hears it too, and answers nothing).
      const sizes: number[] = [];
      nc.subscribe('parley.realm.*.cmd', {
        callback: (error, message) => {
          if (!error) sizes.push(message.data.length);
        },
      });
      // The largest message of the realm's emissions the owner sends the gateway.
      let largestBatches = 0;
      nc.subscribe(subjects.allEvents, {
        callback: (error, message) => {
          if (!error) largestBatches = Math.max(largestBatches, message.data.length);
        },
      });
      await nc.flush();
      const emails = ['iago@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com', 'cordelia@zulip.com'];
      const clients = await Promise.all(emails.map((email) => cluster.client(gateway, email)));
      const queue = await register(clients[1]!, { event_types: ['message'] });
      // Long messages: a turn's requests together may outgrow the largest NATS message (1 MiB).
      const content = (n: number) => `${n} ${'lorem ipsum '.repeat(800)}`;
      const answers = await Promise.all(
        Array.from({ length: 240 }, async (_, n) => {
          const client = clients[n % clients.length]!;
          if (n % 2 === 0) return { n, me: (await client.get('/users/me')).body as { email: string } };
          const sent = await client.post('/messages', { type: 'stream', to: 'Verona', topic: `together ${n}`, content: content(n) });
          return { n, sent: sent.body as { result: string; id: number } };
        }),
      );
      for (const answer of answers) {
        if (answer.me) assert.is(answer.me.email, emails[answer.n % emails.length]);
        else assert.is(answer.sent?.result, 'success', JSON.stringify(answer.sent));
      }
      // Every message as its sender sent it, read on the owner.
      for (const answer of answers.filter((a) => a.sent)) {
        const message = (await iagoOnOwner.get(`/messages/${answer.sent!.id}`, { apply_markdown: false })).body.message as { content: string; sender_email: string; subject: string };
        assert.equal([message.content, message.sender_email, message.subject], [content(answer.n), emails[answer.n % emails.length], `together ${answer.n}`]);
      }
      // Credentials, reads and sends: more requests than messages carried them, none over NATS's limit.
      assert.ok(sizes.length < 360, `${sizes.length} NATS messages for 360 requests`);
      assert.ok(sizes.every((size) => size <= 1024 * 1024), `largest ${Math.max(...sizes)} bytes`);
      // The gateway's queue got every message, in the order sent, in batches the owner gathered
      // (src/cluster/events.ts) into messages none over the limit.
      const sentIds = answers.flatMap((answer) => (answer.sent ? [answer.sent.id] : [])).sort((a, b) => a - b);
      const heard = await pollEvents(clients[1]!, queue.queueId, sentIds.length, -1, 20_000);
      assert.equal(heard.map((event) => (event.message as { id: number }).id), sentIds);
      assert.ok(largestBatches <= 1024 * 1024, `largest ${largestBatches} bytes`);

      // An answer bigger than NATS's largest message (1 MiB) comes in parts, whole.
      const fetch = { anchor: 'newest', num_before: 200, num_after: 0, narrow: [{ operator: 'channel', operand: 'Verona' }] };
      const [onGateway, onOwner] = await Promise.all([clients[0]!.get('/messages', fetch), iagoOnOwner.get('/messages', fetch)]);
      assert.is(onGateway.status, 200, JSON.stringify(onGateway.body).slice(0, 300));
      assert.ok(JSON.stringify(onGateway.body).length > 1024 * 1024, 'the answer outgrows one NATS message');
      assert.equal(onGateway.body.messages, onOwner.body.messages);
    }),
  ));

test.run();
