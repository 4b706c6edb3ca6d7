// Queues held on other nodes count at the realm's owner: a public channel's message reaches the
// all_public_streams queues registered on any node (and the owner names only their users between
// nodes, not every reader, nor a registration that opened no queue), and a user whose client holds
// a queue on another node is not pushed a missed-message notification; once that queue is gone, or
// its node died or restarted, they are; a new owner asks the nodes what they hold.
import { connect } from '@nats-io/transport-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBatches } from '../../src/cluster/batches.js';
import { subjects } from '../../src/cluster/connection.js';
import { stop, type ParleyNode } from '../../src/cli/processes.js';
import { MAX_QUEUES_PER_USER } from '../../src/events/queues.js';
import type { Emitted } from '../../src/events/types.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { eventually, startCluster, type TestCluster } from '../helpers/cluster.js';
import { pollEvents, register, type Event } from '../helpers/events.js';
import { registerDevice, type Device } from '../helpers/pushDevices.js';
import { FakeRelay } from '../helpers/relay.js';


const messageIdOf = (emission: Emitted): number | undefined => (emission.event.type === 'message' ? emission.event.message.id : undefined);
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
const messageIds = (events: Event[]) => events.map((event) => [(event.message as { id: number }).id, event.flags]);
const pending = async (client: ApiClient, queueId: string) => (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];

test('all_public_streams queues on any node get public messages; the owner names only their users', async () => {
  const cluster = await startCluster({ nodes: 2 });
  const nc = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    // The first node seeded the demo realm and owns it.
    const [owner, gateway] = cluster.nodes as [ParleyNode, ParleyNode];
    const iago = await cluster.client(owner, 'iago@zulip.com');
    assert.is((await iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Lobby' }]) })).status, 200);
    assert.is((await iago.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Backroom' }]), invite_only: true })).status, 200);
    const cordelia = await cluster.client(gateway, 'cordelia@zulip.com');
    const othello = await cluster.client(gateway, 'othello@zulip.com');
    const polonius = await cluster.client(gateway, 'polonius@zulip.com');
    const hamlet = await cluster.client(owner, 'hamlet@zulip.com');
    const everywhere = await register(cordelia, { all_public_streams: true, event_types: ['message'] });
    const usual = await register(othello, { event_types: ['message'] });
    // A guest may not follow every public channel (Zulip's can_access_public_streams): refused.
    assert.is((await polonius.post('/register', { all_public_streams: true, event_types: JSON.stringify(['message']) })).status, 400);
    const onOwner = await register(hamlet, { all_public_streams: true, event_types: ['message'] });

    const emissions: Emitted[] = [];
    nc.subscribe(subjects.allEvents, {
      callback: (error, message) => {
        // Read as a node that sent none of them.
        if (!error) for (const batch of decodeBatches(message.data)) emissions.push(...batch.emissions);
      },
    });
    await nc.flush();

    const send = async (to: string, content: string) => Number((await iago.post('/messages', { type: 'stream', to, topic: 'hello', content })).body.id);
    const first = await send('Lobby', 'for everyone');
    await send('Backroom', 'not for cordelia');
    const last = await send('Lobby', 'for everyone again');
    const expected = [[first, []], [last, []]];
    assert.equal(messageIds(await pollEvents(cordelia, everywhere.queueId, 2)), expected, 'the gateway\'s all_public_streams queue: both public messages, without flags');
    assert.equal(messageIds(await pollEvents(hamlet, onOwner.queueId, 2)), expected, 'the owner\'s own');
    assert.equal(await pending(othello, usual.queueId), [], 'a queue without all_public_streams');

    const named = emissions.filter((emission) => emission.allPublicStreamsOnly).map((emission) => [messageIdOf(emission), [...emission.userIds].sort((a, b) => a - b)]);
    const holders = [await idOf(cordelia), await idOf(hamlet)].sort((a, b) => a - b);
    assert.equal(named, [[first, holders], [last, holders]], 'between nodes, each names only the users holding such a queue who may read it');

    // Deleted on the gateway: the owner stops naming that user (told without waiting: soon after).
    assert.is((await cordelia.delete('/events', { queue_id: everywhere.queueId })).status, 200);
    const hamletId = await idOf(hamlet);
    const namingOnlyHamlet = (what: string) =>
      eventually(async () => {
        const id = await send('Lobby', what);
        const emission = await eventually(async () => emissions.find((candidate) => candidate.allPublicStreamsOnly && messageIdOf(candidate) === id), 5_000, 'the emission');
        const userIds = [...emission.userIds];
        return userIds.length === 1 && userIds[0] === hamletId ? true : undefined;
      }, 10_000, `${what}: an emission naming only the owner's all_public_streams user`);
    await namingOnlyHamlet('after the queue went');

    // Refused by the gateway after the owner answered: Othello's queues there reached the limit while
    // the owner read the state. The owner counted the all_public_streams queue from the start of its
    // registration, and is told at once that it never opened (no later queue change of Othello's).
    await Promise.all(Array.from({ length: MAX_QUEUES_PER_USER - 2 }, () => register(othello, { event_types: ['message'] })));
    let refused: ApiResponse | undefined;
    for (let attempt = 0; attempt < 10 && !refused; attempt++) {
      // One queue short of the limit, two at once: whichever the gateway opens second is refused.
      const [plain, everything] = await Promise.all([othello.post('/register', { event_types: ['message'] }), othello.post('/register', { event_types: ['message'], all_public_streams: true })]);
      assert.equal([plain.status, everything.status].sort(), [200, 400], JSON.stringify([plain.body, everything.body]));
      if (everything.status === 400) refused = everything;
      else assert.is((await othello.delete('/events', { queue_id: String(everything.body.queue_id) })).status, 200);
    }
    assert.match(String(refused?.body.msg), /Too many event queues/);
    await namingOnlyHamlet('after the refused registration');
  } finally {
    await nc.close();
    await cluster.stop();
  }
});

const RELAY_CREDENTIALS = 'server-uuid:server-api-key';

/** Pushes of direct messages from Iago to Othello and Cordelia, as the relay saw them. */
async function directPushes(relay: FakeRelay, cluster: TestCluster, senderNode: ParleyNode, othelloNode: ParleyNode) {
  const othello = await cluster.client(othelloNode, 'othello@zulip.com');
  const cordelia = await cluster.client(senderNode, 'cordelia@zulip.com');
  const iago = await cluster.client(senderNode, 'iago@zulip.com');
  const othelloPhone = await registerDevice(othello, 701);
  const cordeliaPhone = await registerDevice(cordelia, 702);
  // Connected, Othello wants no push.
  assert.is((await othello.patch('/settings', { enable_online_push_notifications: false })).status, 200);
  const pushesTo = (device: Device) =>
    relay.requests
      .filter((request) => request.path === '/api/v1/remotes/push/e2ee/notify')
      .flatMap((request) => request.body.devices as { push_account_id: number }[])
      .filter((target) => target.push_account_id === device.pushAccountId).length;
  const direct = async (to: string[], content: string) => assert.is((await iago.post('/messages', { type: 'direct', to: JSON.stringify(to), content })).status, 200);
  return {
    othello,
    /** A message to both: Cordelia, who has no queue anywhere, is pushed; Othello is not. */
    async assertOnlyCordeliaPushed(what: string) {
      const [before, othelloBefore] = [pushesTo(cordeliaPhone), pushesTo(othelloPhone)];
      await direct(['othello@zulip.com', 'cordelia@zulip.com'], what);
      await eventually(async () => (pushesTo(cordeliaPhone) > before ? true : undefined), 10_000, `${what}: the push to Cordelia`);
      // Sent after the first, pushed after it: by then every push of the first is out.
      await direct(['cordelia@zulip.com'], `${what}: to Cordelia alone`);
      await eventually(async () => (pushesTo(cordeliaPhone) > before + 1 ? true : undefined), 10_000, `${what}: the second push to Cordelia`);
      assert.is(pushesTo(othelloPhone), othelloBefore, `${what}: Othello is connected, no push`);
    },
    async assertOthelloPushed(what: string) {
      const before = pushesTo(othelloPhone);
      await eventually(async () => {
        await direct(['othello@zulip.com'], what);
        return pushesTo(othelloPhone) > before ? true : await new Promise<undefined>((resolve) => setTimeout(resolve, 300, undefined));
      }, 10_000, `${what}: a push to Othello`);
    },
  };
}

async function withRelay(nodes: number, run: (relay: FakeRelay, cluster: TestCluster) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const relay = await FakeRelay.start();
  const cluster = await startCluster({ nodes, env: { PARLEY_PUSH_RELAY_URL: relay.url, PARLEY_PUSH_RELAY_CREDENTIALS: RELAY_CREDENTIALS, ...env } });
  try {
    await run(relay, cluster);
  } finally {
    await cluster.stop();
    await relay.close();
  }
}

test('a user with a queue on another node is not pushed for a message the owner processes; with none (refused, deleted, its node died), they are', () =>
  withRelay(2, async (relay, cluster) => {
    const [owner, gateway] = cluster.nodes as [ParleyNode, ParleyNode];
    const pushes = await directPushes(relay, cluster, owner, gateway);
    // A registration the owner refuses leaves no queue: the owner counted it from the start, and
    // learns at once that it never opened.
    const refused = await pushes.othello.post('/register', { event_types: ['message'], narrow: [{ operator: 'channel', operand: 'No such channel' }] });
    assert.is(refused.status, 400, JSON.stringify(refused.body));
    await pushes.assertOthelloPushed('registration refused');
    const queue = await register(pushes.othello, { event_types: ['message'] });
    await pushes.assertOnlyCordeliaPushed('queue on the gateway');
    assert.is((await pushes.othello.delete('/events', { queue_id: queue.queueId })).status, 200);
    await pushes.assertOthelloPushed('queue deleted');

    await register(pushes.othello, { event_types: ['message'] });
    await pushes.assertOnlyCordeliaPushed('registered again');
    gateway.child.kill('SIGKILL');
    await pushes.assertOthelloPushed('gateway killed');
  }));

test('a node killed and restarted under its name voids what it told before: its old queues count no more', () =>
  withRelay(
    2,
    async (relay, cluster) => {
      const [owner, gateway] = cluster.nodes as [ParleyNode, ParleyNode];
      const pushes = await directPushes(relay, cluster, owner, gateway);
      await register(pushes.othello, { event_types: ['message'] });
      await pushes.assertOnlyCordeliaPushed('queue on the gateway');
      gateway.child.kill('SIGKILL');
      await gateway.exited;
      // Back well within its heartbeat's lapse: never judged dead, so only its word voids the old queue.
      await cluster.restart(gateway);
      await pushes.assertOthelloPushed('the gateway restarted');
    },
    { PARLEY_LEASE_MS: '20000' },
  ));

test('a new owner asks every node for its queue holders: connected before the handover, connected after', () =>
  withRelay(3, async (relay, cluster) => {
    const [owner, second, third] = cluster.nodes as [ParleyNode, ParleyNode, ParleyNode];
    const pushes = await directPushes(relay, cluster, second, second);
    // A queue on each survivor: whichever takes the realm starts its own queues over, and learns
    // of the other's only by asking.
    await register(pushes.othello, { event_types: ['message'] });
    await register(await cluster.client(third, 'othello@zulip.com'), { event_types: ['message'] });
    await pushes.assertOnlyCordeliaPushed('before the handover');
    await stop(owner);
    await pushes.assertOnlyCordeliaPushed('after the handover');
  }));

test('a gateway paused past its heartbeat, whose holdings its owner dropped, has its queue dropped within a tick rather than silently missing events', async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    const [owner, gateway] = cluster.nodes as [ParleyNode, ParleyNode];
    const iago = await cluster.client(owner, 'iago@zulip.com');
    const send = async (content: string) => {
      const sent = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'pruned', content });
      assert.is(sent.status, 200, JSON.stringify(sent.body));
      return sent.body.id as number;
    };
    const hamlet = await cluster.client(gateway, 'hamlet@zulip.com');
    const queue = await register(hamlet, { event_types: ['message'] });
    const first = await send('before the pause');
    const [event] = await pollEvents(hamlet, queue.queueId, 1);
    assert.is((event!.message as { id: number }).id, first);
    // Its heartbeat lapses: the owner forgets what it told, and sends its emissions to nobody.
    gateway.child.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 4000));
    gateway.child.kill('SIGCONT');
    const second = await send('after the pause');
    const outcome = await eventually(
      async () => {
        const polled = await hamlet.get('/events', { queue_id: queue.queueId, last_event_id: event!.id, dont_block: true });
        if (polled.status === 400) return polled.body.code as string;
        return (polled.body.events as Event[]).some((got) => (got.message as { id: number } | undefined)?.id === second) ? 'delivered' : undefined;
      },
      10_000,
      'the queue getting the message or being dropped',
    );
    assert.ok(['BAD_EVENT_QUEUE_ID', 'delivered'].includes(outcome), outcome);
  } finally {
    await cluster.stop();
  }
});

test.run();
