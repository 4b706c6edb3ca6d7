// Pieces of a node at the wire, on a real nats-server and with no Parley node: the event bus sends
// a realm's batches of one turn as one NATS message, ahead of the owner's answers of that turn
// (whose state may include them), and tells where the realm stands after a batch it could not
// send; a lease given up while its renewal is under way stays given up, and one moved by the
// node's own write whose answer was lost stays the node's; an owner's drain covers every request
// it took.
import { connect, createInbox } from '@nats-io/transport-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Principal } from '../../src/auth/basic.js';
import { decodeBatches } from '../../src/cluster/batches.js';
import { serveCommands } from '../../src/cluster/commandServer.js';
import { codec, type Asked } from '../../src/cluster/commandWire.js';
import { subjects } from '../../src/cluster/connection.js';
import { EventBus } from '../../src/cluster/events.js';
import { Gathered } from '../../src/cluster/gathered.js';
import { Leases, type Lease } from '../../src/cluster/leases.js';
import type { Credentials } from '../../src/cluster/principals.js';
import { kvCodec } from '../../src/cluster/watched.js';
import { loadConfig } from '../../src/config.js';
import { EventQueues, type HeardBatch } from '../../src/events/queues.js';
import type { CommandName, OutputOf } from '../../src/realm/commands/index.js';
import type { RealmHandle } from '../../src/realm/handle.js';
import { requestOf } from '../../src/realm/replies.js';
import { eventually, onNats } from '../helpers/cluster.js';
import { capturedLog } from '../helpers/logs.js';
import { REALM, shelf, status } from '../helpers/realmQueues.js';

test("a realm's batches of one turn travel as one NATS message, at following positions, ahead of the answers sent behind them", () =>
  onNats(async (cluster, natsUrl) => {
    const bus = new EventBus(cluster, new EventQueues(shelf), () => true, () => true, loadConfig({}).log);
    const answers = new Gathered<undefined>(cluster.nc, (subject, data) => cluster.nc.publish(subject, data), () => undefined, { behind: bus });
    const listener = await connect({ servers: natsUrl });
    try {
      const heard: { subject: string; data: Uint8Array }[] = [];
      listener.subscribe('parley.>', {
        callback: (error, message) => {
          if (!error) heard.push({ subject: message.subject, data: message.data });
        },
      });
      await listener.flush();
      const sink = bus.sinkFor(REALM, 1);
      // One turn: an answer gathered before the realm's emissions, another after them.
      answers.add('parley.test.answers', new Uint8Array([1]), undefined);
      sink.publish(REALM, [status('one')]);
      sink.publish(REALM, [status('two'), status('three')]);
      answers.add('parley.test.answers', new Uint8Array([2]), undefined);
      await eventually(async () => (heard.length >= 2 ? true : undefined), 5000, 'both messages heard');
      assert.equal(
        heard.map(({ subject }) => subject),
        [`parley.events.${REALM}`, 'parley.test.answers'],
      );
      const batches = decodeBatches(heard[0]!.data).map(({ header, emissions }) => [header, emissions.map(({ event }) => event.type === 'user_status' && event.status_text)]);
      assert.equal(batches, [
        [{ epoch: 1, from: 1 }, ['one']],
        [{ epoch: 1, from: 2 }, ['two', 'three']],
      ]);
      assert.equal([...heard[1]!.data], [1, 2], 'the answers, together');
    } finally {
      await listener.close();
    }
  }));

test('a batch too big for NATS is not sent: the next tick tells where the realm stands, after it, so that the queues lacking it are dropped', () =>
  onNats(async (cluster, natsUrl) => {
    const { log, lines: logged } = capturedLog<{ msg: string }>('info');
    const bus = new EventBus(cluster, new EventQueues(shelf), () => true, () => true, log);
    const listener = await connect({ servers: natsUrl });
    try {
      const heard: (HeardBatch & { count: number })[] = [];
      listener.subscribe(`parley.events.${REALM}`, {
        callback: (error, message) => {
          if (!error) heard.push(...decodeBatches(message.data).map(({ header, emissions }) => ({ ...header, count: emissions.length })));
        },
      });
      await listener.flush();
      const sink = bus.sinkFor(REALM, 1);
      sink.publish(REALM, [status('small')]);
      sink.publish(REALM, [status('x'.repeat(2 * 1024 * 1024))]);
      await new Promise((resolve) => setImmediate(resolve));
      bus.tellPositions();
      await eventually(async () => (heard.length >= 2 ? true : undefined), 5000, 'two batches heard');
      assert.equal(heard, [
        { epoch: 1, from: 1, count: 1 },
        { epoch: 1, from: 3, count: 0 },
      ]);
      assert.ok(logged.some(({ msg }) => msg.includes('a batch of emissions could not be sent')));
    } finally {
      await listener.close();
    }
  }));

test('a lease given up while renewals are under way stays given up, and renewals that overlap do not lose it', () =>
  onNats(async (cluster) => {
    const lost: number[] = [];
    const leases = new Leases(cluster, 'wire', 1500, (realmId) => lost.push(realmId), () => undefined);
    await leases.start();
    try {
      assert.equal(await leases.take(7), { epoch: 1, released: true });
      // Two ticks' renewals under way at once (NATS slow): one write, and the lease still held.
      await Promise.all([leases.renew(), leases.renew()]);
      assert.ok(leases.holds(7));
      assert.equal(lost, [], 'no renewal took the lease for taken by another node');
      // Two ticks' renewals and a drain's release, all under way at once.
      await Promise.all([leases.renew(), leases.renew(), leases.release(7)]);
      await leases.renew();
      assert.is(leases.holds(7), false);
      const written = await cluster.leases.get('7');
      assert.equal(kvCodec.unpack(written!.value) as Lease, { node: '', epoch: 1, beat: 2 }, 'given up after the renewal it waited for');
    } finally {
      leases.table.close();
    }
  }));

test("a renewal or a release that finds the lease moved by this node's own write (its answer lost) goes on from it; another node's is given up", () =>
  onNats(async (cluster) => {
    const lost: number[] = [];
    const leases = new Leases(cluster, 'wire', 1500, (realmId) => lost.push(realmId), () => undefined);
    await leases.start();
    /** Writes the lease past the revision the node holds, as a write whose answer never came. */
    const moveLease = async (realmId: number, lease: Lease) => {
      const entry = await cluster.leases.get(String(realmId));
      await cluster.leases.update(String(realmId), kvCodec.pack(lease), entry!.revision);
    };
    const stored = async (realmId: number) => kvCodec.unpack((await cluster.leases.get(String(realmId)))!.value) as Lease;
    try {
      await leases.take(8);
      await moveLease(8, { node: 'wire', epoch: 1, beat: 1 });
      await leases.renew();
      assert.ok(leases.holds(8), 'still held');
      assert.equal(await stored(8), { node: 'wire', epoch: 1, beat: 2 }, 'renewed from the write it found, at once');
      await moveLease(8, { node: 'wire', epoch: 1, beat: 3 });
      await leases.release(8);
      assert.equal(await stored(8), { node: '', epoch: 1, beat: 3 }, 'given up from the write it found');
      assert.equal(lost, []);

      // Not its own: another node's (of the same epoch, which the lease watch does not take for
      // a takeover), or this node's name under another epoch.
      for (const [realmId, lease] of [[9, { node: 'other', epoch: 1, beat: 0 }], [10, { node: 'wire', epoch: 2, beat: 0 }]] as const) {
        await leases.take(realmId);
        await moveLease(realmId, lease);
        await leases.renew();
        assert.ok(lost.includes(realmId), `${JSON.stringify(lease)}: the realm given up`);
        assert.is(leases.holds(realmId), false);
      }
    } finally {
      leases.table.close();
    }
  }));

test("an owner's drain resolves once every request it took has started on the realm, one whose kept credentials are checked again first included", () =>
  onNats(async (cluster, natsUrl) => {
    const principal: Principal = { userId: 8, role: 200, isBot: false, incomingWebhook: false };
    const credentials: Credentials = ['auth.apiKey', { apiKey: 'kept' }];
    const asked: CommandName[] = [];
    // The realm: checking credentials again takes a while, as a busy realm thread would.
    const ask = async <N extends CommandName>(name: N): Promise<OutputOf<N>> => {
      asked.push(name);
      if (name === 'auth.apiKey') await new Promise((resolve) => setTimeout(resolve, 200));
      return (name === 'auth.apiKey' ? principal : {}) as OutputOf<N>;
    };
    const realm: RealmHandle = { realm: { id: REALM, subdomain: 'zulip' }, ask, answer: ask, askFields: () => Promise.reject(new Error('not asked')) };
    const service = serveCommands(cluster, REALM, { epoch: 1, released: true }, realm, { flush: () => undefined });
    const gateway = await connect({ servers: natsUrl });
    try {
      gateway.publish(subjects.commands(REALM), codec.pack([0, requestOf('drafts.delete', 8, { id: 1 }), [credentials, principal], 1, 5000] satisfies Asked), { reply: createInbox() });
      await gateway.flush();
      await eventually(async () => (asked.length > 0 ? true : undefined), 5000, 'the request taken');
      await service.drain();
      assert.equal(asked, ['auth.apiKey', 'drafts.delete'], 'the write started before the drain resolved');
    } finally {
      await gateway.close();
    }
  }));

test.run();
