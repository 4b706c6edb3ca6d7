// What a front cannot read of what another thread posted it: a value nested deeper than the main
// thread's stack takes (a quarter of a worker's) is copied by a worker but not read on the main
// thread — only a bug makes one. Nothing waits forever and no event goes missing unnoticed: the
// requests waiting on that thread fail, the queues that may lack events are dropped (their clients
// register again), the sockets reading the other thread's queues close (their clients connect
// again), and what comes next is read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel, Worker } from 'node:worker_threads';
import { QueueCounts } from '../src/events/queueCounts.js';
import type { DetachReason } from '../src/events/queue.js';
import { EventQueues } from '../src/events/queues.js';
import { FrontPeers, type PeerBatch } from '../src/threads/peers.js';
import { RealmFront } from '../src/threads/realmsThread.js';
import type { UnreadablePeerData } from './fixtures/unreadablePeer.js';
import type { UnreadableRealmThreadData } from './fixtures/unreadableRealmThread.js';
import { capturedLog } from './helpers/logs.js';
import { nestedArrays } from './helpers/nesting.js';
import { gone, HAMLET, opened, REALM, shelf, texts } from './helpers/realmQueues.js';
import { testConfig, waitFor } from './helpers/server.js';

/** Deeper than the main thread reads, not deeper than a worker copies (about 3,200 and 13,000
 * levels on Node.js 20: checked first). */
const DEPTH = 7_000;

test('the depth is beyond what this thread copies', () => {
  assert.throws(() => structuredClone(JSON.parse(nestedArrays(DEPTH))), RangeError);
});

/** A worker of test/fixtures/ on the other side of `data.port`. */
function otherThread(fixture: string, data: UnreadableRealmThreadData | UnreadablePeerData): Worker {
  return new Worker(new URL(`./fixtures/${fixture}.js`, import.meta.url), { workerData: data, transferList: [data.port] });
}

/** What a promise settles with (its error, or undefined); the test fails if it waits over 5 s. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  let settled: { error: unknown } | undefined;
  promise.then(
    () => (settled = { error: undefined }),
    (error: unknown) => (settled = { error }),
  );
  await waitFor(() => settled !== undefined);
  return settled!.error;
}

test("a realm thread's batch the front cannot read fails the requests waiting on it and drops its realms' queues; emissions it cannot decode drop the queues, the replies after them read; what comes next is read", async () => {
  const { port1, port2 } = new MessageChannel();
  const realmThread = otherThread('unreadableRealmThread', { port: port2, depth: DEPTH });
  const { log, lines } = capturedLog<{ msg: string }>('error');
  const front = new RealmFront(testConfig({ log }), [port1], 0, 1, new QueueCounts(), 1_796_000_000);
  try {
    await front.start();
    const first = opened(front.queues, HAMLET, 0);
    assert.instance(await outcome(front.sync()), Error, 'the request waiting on the unread batch fails');
    gone(front.queues, first, HAMLET, "the realm's queues that may lack its emissions are dropped");
    const second = opened(front.queues, HAMLET, 1);
    assert.is(await outcome(front.sync()), undefined);
    gone(front.queues, second, HAMLET, 'emissions that cannot be decoded drop the queues too; the reply after them is read');
    const third = opened(front.queues, HAMLET, 2);
    assert.is(await outcome(front.sync()), undefined);
    assert.equal(texts(front.queues, third, HAMLET), ['read'], 'what comes next is read, into the queues opened since');
    await waitFor(() => lines.length === 2);
    assert.equal(
      lines.map(({ msg }) => msg),
      ["a batch from a realm thread could not be read: the requests waiting on it fail, and its realms' event queues are dropped", "emissions from a realm thread could not be read: its realms' event queues are dropped"],
    );
  } finally {
    await realmThread.terminate();
    port1.close();
  }
});

test("another front's batch this front cannot read ends everything between the two: what waits on it fails, the sockets reading its queues close, and it is told the two start over", async () => {
  const { port1, port2 } = new MessageChannel();
  const other = otherThread('unreadablePeer', { port: port2, depth: DEPTH });
  const told: PeerBatch[] = [];
  other.on('message', (batch: PeerBatch) => told.push(batch));
  const { log, lines } = capturedLog<{ msg: string }>('error');
  const config = testConfig({ log });
  const queues = new EventQueues(shelf, config.clock, config.metrics, 0, new QueueCounts(), 1_796_000_000);
  const peers = new FrontPeers(0, 2, new Map([[1, port1]]), () => Promise.reject(new Error('nothing is asked here')), queues, config.log);
  try {
    const asked = peers.ask(1, { kind: 'read', realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1, dontBlock: false }, new AbortController().signal);
    const heard: string[] = [];
    let detached: DetachReason | undefined;
    peers.attach(1, { realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1 }, {
      attached: () => heard.push('attached'),
      refused: () => heard.push('refused'),
      events: () => heard.push('events'),
      detached: (reason) => (detached = reason),
    });
    assert.instance(await outcome(asked), Error, 'the answer waited for fails');
    assert.equal([heard, detached], [['attached'], 'shutdown'], 'the socket closes as at a stop, its client to connect again');
    await waitFor(() => told.length === 1);
    assert.equal(told, [{ session: 1, messages: [] }], 'the other front is told the two start over (frontPeers.test.ts)');
    await waitFor(() => lines.length === 1);
    assert.is(lines[0]!.msg, 'a batch from another front could not be read: the two fronts start over');
  } finally {
    await other.terminate();
    peers.close();
  }
});

test("a batch the front cannot read when a queue's read takes what waits on the port (several fronts) fails the requests waiting on it and drops the queues; the read goes on, and what comes next is read", async () => {
  const { port1, port2 } = new MessageChannel();
  const signal = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const realmThread = otherThread('unreadableRealmThread', { port: port2, depth: DEPTH, signal });
  const { log, lines } = capturedLog<{ msg: string }>('error');
  // Two fronts: a read of a queue first takes what the realm thread posted (catchUp).
  const front = new RealmFront(testConfig({ log }), [port1], 0, 2, new QueueCounts(), 1_796_000_000);
  try {
    await front.start();
    const first = opened(front.queues, HAMLET, 0);
    const waiting = outcome(front.sync());
    // The request goes at the end of this turn; once the realm thread posted its unreadable
    // answer, the queue's read takes it, before the event loop could.
    await new Promise((resolve) => setImmediate(resolve));
    Atomics.wait(new Int32Array(signal), 0, 0, 5_000);
    gone(front.queues, first, HAMLET, 'the queues that may lack emissions are dropped by the read that found the batch');
    assert.instance(await waiting, Error, 'the request waiting on it fails');
    const second = opened(front.queues, HAMLET, 0);
    assert.is(await outcome(front.sync()), undefined);
    assert.equal(texts(front.queues, second, HAMLET), ['read']);
    await waitFor(() => lines.length === 1);
    assert.equal(
      lines.map(({ msg }) => msg),
      ["a batch from a realm thread could not be read: the requests waiting on it fail, and its realms' event queues are dropped"],
    );
  } finally {
    await realmThread.terminate();
    port1.close();
  }
});

test.run();
