// A front's messages to another front (threads/peers.ts), with the other front played by the test
// on the far end of their port: they go in batches, in order; a stream's events that cannot be
// copied close that stream alone; a reset ends everything between the two.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { QueueCounts } from '../src/events/queueCounts.js';
import type { DetachReason } from '../src/events/queue.js';
import { EventQueues } from '../src/events/queues.js';
import type { Emitted } from '../src/events/types.js';
import { FrontPeers, type PeerMessage } from '../src/threads/peers.js';
import { capturedLog } from './helpers/logs.js';
import { nestedArrays } from './helpers/nesting.js';
import { HAMLET, opened, OTHELLO, REALM, shelf } from './helpers/realmQueues.js';
import { testConfig, waitFor } from './helpers/server.js';

/** A status change, for some users. */
const status = (text: string, userIds: number[]): Emitted => ({ event: { type: 'user_status', user_id: HAMLET, status_text: text }, userIds });

/** What the other front was told, each post as it came. */
type Posts = PeerMessage[][];

/** This front (index 0) with a queue of Hamlet's and one of Othello's, a socket on the other front
 * reading each (streams 7 and 9), and the other front's end of their port. */
async function twoFronts() {
  const { port1, port2 } = new MessageChannel();
  const { log, lines } = capturedLog<{ msg: string; kind?: string }>('error');
  const config = testConfig({ log });
  const queues = new EventQueues(shelf, config.clock, config.metrics, 0, new QueueCounts(), 1_796_000_000);
  queues.publish(REALM, []);
  const hamlet = opened(queues, HAMLET, queues.position(REALM));
  const othello = opened(queues, OTHELLO, queues.position(REALM));
  const peers = new FrontPeers(0, 2, new Map([[1, port1]]), () => Promise.reject(new Error('nothing is asked here')), queues, config.log);
  const posts: Posts = [];
  port2.on('message', (batch: PeerMessage[]) => posts.push(batch));
  port2.postMessage([
    { kind: 'attach', id: 7, request: { realmId: REALM, userId: HAMLET, queueId: hamlet, lastEventId: -1 } },
    { kind: 'attach', id: 9, request: { realmId: REALM, userId: OTHELLO, queueId: othello, lastEventId: -1 } },
  ] satisfies PeerMessage[]);
  await waitFor(() => told(posts).filter(({ kind }) => kind === 'attached').length === 2);
  const close = () => {
    peers.close();
    port2.close();
  };
  return { queues, queue: (id: string, userId: number) => queues.get(id, REALM, userId), hamlet, othello, peers, other: port2, posts, lines, close };
}

const told = (posts: Posts): PeerMessage[] => posts.flat();

/** The status texts a stream was sent, in order. */
function streamed(posts: Posts, stream: number): string[] {
  return told(posts).flatMap((message) => (message.kind === 'events' && message.id === stream ? message.events.map(({ event }) => (event as { status_text: string }).status_text) : []));
}

test("the events of queues read from another front go in one post a turn, each stream's in order", async () => {
  const { queues, posts, close } = await twoFronts();
  try {
    const before = posts.length;
    queues.publish(REALM, [status('one', [HAMLET, OTHELLO])]);
    queues.publish(REALM, [status('two', [HAMLET, OTHELLO])]);
    queues.deliverPending();
    await waitFor(() => streamed(posts, 7).length === 2 && streamed(posts, 9).length === 2);
    assert.equal([streamed(posts, 7), streamed(posts, 9)], [
      ['one', 'two'],
      ['one', 'two'],
    ]);
    assert.equal(
      posts.slice(before).map((post) => post.map(({ kind }) => kind)),
      [['events', 'events']],
      "both sockets' events in one post",
    );
  } finally {
    close();
  }
});

test("a stream's events that cannot be copied close that socket as at a stop, logged; what follows them in the batch still goes", async () => {
  const { queues, posts, lines, close } = await twoFronts();
  try {
    // Deeper than this thread copies (unreadableBatches.test.ts checks the depth); Hamlet's first.
    queues.publish(REALM, [{ ...status('deep', [HAMLET]), event: { type: 'user_status', user_id: HAMLET, status_text: JSON.parse(nestedArrays(7_000)) as string } }]);
    queues.publish(REALM, [status('after', [OTHELLO])]);
    queues.deliverPending();
    await waitFor(() => told(posts).some(({ kind }) => kind === 'detach'));
    assert.equal(streamed(posts, 9), ['after'], "the other socket's events went");
    assert.equal(streamed(posts, 7), []);
    assert.equal(told(posts).find(({ kind }) => kind === 'detach'), { kind: 'detach', id: 7, reason: 'shutdown' });
    assert.equal(
      lines.map(({ msg, kind }) => [msg, kind]),
      [['a message to another front could not be copied', 'events']],
    );
  } finally {
    close();
  }
});

test('a reset from the other front ends everything between the two: what this front asked fails, its socket there closes, and the sockets there let go of the queues here', async () => {
  const { queues, queue, hamlet, othello, peers, other, posts, close } = await twoFronts();
  try {
    let failed: unknown;
    peers.ask(1, { kind: 'read', realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1, dontBlock: false }, new AbortController().signal).catch((error: unknown) => (failed = error));
    let detached: DetachReason | undefined;
    peers.attach(1, { realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1 }, { attached: () => undefined, refused: () => undefined, events: () => undefined, detached: (reason) => (detached = reason) });
    await waitFor(() => told(posts).some(({ kind }) => kind === 'ask'));
    other.postMessage([{ kind: 'reset' }] satisfies PeerMessage[]);
    await waitFor(() => failed !== undefined && detached !== undefined);
    assert.instance(failed, Error, 'the answer waited for fails');
    assert.is(detached, 'shutdown', 'the socket reading the queue there closes as at a stop');
    assert.equal([queue(hamlet, HAMLET).consumer, queue(othello, OTHELLO).consumer], [null, null], 'the queues here have no reader left');
    queues.publish(REALM, [status('unread', [HAMLET, OTHELLO])]);
    queues.deliverPending();
    assert.equal(queue(hamlet, HAMLET).after(-1).length, 1, 'what comes next waits in the queue for its client');
  } finally {
    close();
  }
});

test.run();
