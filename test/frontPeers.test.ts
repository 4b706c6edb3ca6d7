// A front's messages to another front (threads/peers.ts), with the other front played by the test
// on the far end of their port: they go in batches, in order; a stream's events that cannot be
// copied close that stream alone; when one cannot read a batch of the other's, the two start over.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { QueueCounts } from '../src/events/queueCounts.js';
import type { DetachReason } from '../src/events/queue.js';
import { EventQueues } from '../src/events/queues.js';
import type { Emitted } from '../src/events/types.js';
import { FrontPeers, type PeerBatch, type PeerMessage } from '../src/threads/peers.js';
import { capturedLog } from './helpers/logs.js';
import { nestedArrays } from './helpers/nesting.js';
import { HAMLET, opened, OTHELLO, REALM, shelf } from './helpers/realmQueues.js';
import { testConfig, waitFor } from './helpers/server.js';

/** A status change, for some users. */
const status = (text: string, userIds: number[]): Emitted => ({ event: { type: 'user_status', user_id: HAMLET, status_text: text }, userIds });

/** What the other front was told, each post as it came. */
type Posts = PeerBatch[];

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
  port2.on('message', (batch: PeerBatch) => posts.push(batch));
  /** Posts as the other front, in its session of the link. */
  const send = (messages: PeerMessage[], session = 0) => port2.postMessage({ session, messages } satisfies PeerBatch);
  const attach = (id: number, userId: number, queueId: string): PeerMessage => ({ kind: 'attach', id, request: { realmId: REALM, userId, queueId, lastEventId: -1 } });
  send([attach(7, HAMLET, hamlet), attach(9, OTHELLO, othello)]);
  await waitFor(() => told(posts).filter(({ kind }) => kind === 'attached').length === 2);
  const close = () => {
    peers.close();
    port2.close();
  };
  return { queues, queue: (id: string, userId: number) => queues.get(id, REALM, userId), hamlet, othello, peers, port: port1, send, attach, posts, lines, close };
}

/** A long-poll of Hamlet's relayed to the other front, which never answers: what it failed with. */
function askThere(peers: FrontPeers): { failed: unknown } {
  const asked: { failed: unknown } = { failed: undefined };
  peers.ask(1, { kind: 'read', realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1, dontBlock: false }, new AbortController().signal).catch((error: unknown) => (asked.failed = error));
  return asked;
}

const told = (posts: Posts): PeerMessage[] => posts.flatMap(({ messages }) => messages);

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
    const after = posts.slice(before);
    assert.equal(
      after.map(({ messages }) => messages.map(({ kind }) => kind)),
      [['events', 'events']],
      "both sockets' events in one post",
    );
    const [first, second] = after[0]!.messages as Extract<PeerMessage, { kind: 'events' }>[];
    assert.ok(
      first!.events.every((queued, at) => queued === second!.events[at]),
      'each event once in the post, however many sockets read it (the copy keeps one object one object)',
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

test('a front that cannot read a batch of the other\'s starts over with it: what it asked fails, its socket there closes, the sockets there let go of the queues here, and what the other sent before it heard is dropped', async () => {
  const { queues, queue, hamlet, othello, peers, port, send, attach, posts, close } = await twoFronts();
  try {
    const asked = askThere(peers);
    await waitFor(() => told(posts).some(({ kind }) => kind === 'ask'));
    // An attach still waiting to go when the front starts over is of what it forgets: it never goes.
    let detached: DetachReason | undefined;
    peers.attach(1, { realmId: REALM, userId: HAMLET, queueId: 'q-1', lastEventId: -1 }, { attached: () => undefined, refused: () => undefined, events: () => undefined, detached: (reason) => (detached = reason) });
    port.emit('messageerror', new Error('a batch too deep to read'));
    await waitFor(() => asked.failed !== undefined && detached !== undefined);
    assert.instance(asked.failed, Error, 'the answer waited for fails');
    assert.is(detached, 'shutdown', 'the socket reading the queue there closes as at a stop');
    assert.equal([queue(hamlet, HAMLET).consumer, queue(othello, OTHELLO).consumer], [null, null], 'the queues here have no reader left');
    await waitFor(() => posts.some(({ session }) => session === 1));
    assert.equal(posts.at(-1), { session: 1, messages: [] }, 'the other front is told');
    // Sent before the other front heard: dropped, so no reader is left attached for good.
    send([attach(11, HAMLET, hamlet)]);
    send([attach(12, OTHELLO, othello)], 1);
    await waitFor(() => told(posts).some((message) => message.kind === 'attached' && message.id === 12));
    assert.is(queue(hamlet, HAMLET).consumer, null, 'the attach of the session before is dropped');
    assert.ok(queue(othello, OTHELLO).consumer !== null, 'the new session serves');
    assert.not.ok(told(posts).some(({ id }) => id === 11));
    assert.not.ok(told(posts).some(({ kind }) => kind === 'attach'), 'the attach waiting to go was dropped');
    queues.publish(REALM, [status('unread', [HAMLET])]);
    queues.deliverPending();
    assert.equal(queue(hamlet, HAMLET).after(-1).length, 1, 'what comes next waits in the queue for its client');
  } finally {
    close();
  }
});

test('a batch from the other front in a newer session has this front start over too: what it asked there fails', async () => {
  const { peers, send, posts, close } = await twoFronts();
  try {
    const asked = askThere(peers);
    await waitFor(() => told(posts).some(({ kind }) => kind === 'ask'));
    send([], 1);
    await waitFor(() => asked.failed !== undefined);
    assert.instance(asked.failed, Error);
  } finally {
    close();
  }
});

test.run();
