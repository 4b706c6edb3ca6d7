// A front's messages to another front (threads/peers.ts), with the other front played by the test
// on the far end of their port: they go in batches, in order, and a stream's events that cannot be
// copied close that stream alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { QueueCounts } from '../src/events/queueCounts.js';
import { EventQueues } from '../src/events/queues.js';
import { FrontPeers, type PeerMessage } from '../src/threads/peers.js';
import { capturedLog } from './helpers/logs.js';
import { nestedArrays } from './helpers/nesting.js';
import { HAMLET, opened, REALM, shelf, status } from './helpers/realmQueues.js';
import { testConfig, waitFor } from './helpers/server.js';

/** This front (index 0) with a queue of Hamlet's, and the other front's end of their port. */
function twoFronts() {
  const { port1, port2 } = new MessageChannel();
  const { log, lines } = capturedLog<{ msg: string; kind?: string }>('error');
  const config = testConfig({ log });
  const queues = new EventQueues(shelf, config.clock, config.metrics, 0, new QueueCounts(), 1_796_000_000);
  queues.publish(REALM, []);
  const queueId = opened(queues, HAMLET, queues.position(REALM));
  const peers = new FrontPeers(0, 2, new Map([[1, port1]]), () => Promise.reject(new Error('nothing is asked here')), queues, config.log);
  const batches: PeerMessage[][] = [];
  port2.on('message', (batch: PeerMessage[]) => batches.push(batch));
  const close = () => {
    peers.close();
    port2.close();
  };
  return { queues, queueId, peers, other: port2, batches, lines, close };
}

test("a socket on another front reading a queue here gets the queue's events, several to a batch, in order", async () => {
  const { queues, queueId, other, batches, close } = twoFronts();
  try {
    other.postMessage([{ kind: 'attach', id: 7, request: { realmId: REALM, userId: HAMLET, queueId, lastEventId: -1 } }] satisfies PeerMessage[]);
    await waitFor(() => batches.flat().some(({ kind }) => kind === 'attached'));
    for (const text of ['one', 'two', 'three']) {
      queues.publish(REALM, [status(text)]);
      queues.deliverPending();
    }
    await waitFor(() => batches.flat().filter(({ kind }) => kind === 'events').length > 0);
    const events = batches.flat().flatMap((message) => (message.kind === 'events' ? message.events.map(({ event }) => (event as { status_text: string }).status_text) : []));
    assert.equal(events, ['one', 'two', 'three']);
  } finally {
    close();
  }
});

test("a stream's events that cannot be copied close that socket as at a stop, logged; what else goes to that front still goes", async () => {
  const { queues, queueId, other, batches, lines, close } = twoFronts();
  try {
    other.postMessage([{ kind: 'attach', id: 7, request: { realmId: REALM, userId: HAMLET, queueId, lastEventId: -1 } }] satisfies PeerMessage[]);
    await waitFor(() => batches.flat().some(({ kind }) => kind === 'attached'));
    // Deeper than this thread copies (unreadableBatches.test.ts checks the depth).
    queues.publish(REALM, [{ event: { type: 'user_status', user_id: HAMLET, status_text: JSON.parse(nestedArrays(7_000)) as string }, userIds: [HAMLET] }]);
    queues.deliverPending();
    other.postMessage([{ kind: 'attach', id: 8, request: { realmId: REALM, userId: HAMLET, queueId: 'no-such-queue', lastEventId: -1 } }] satisfies PeerMessage[]);
    await waitFor(() => batches.flat().some(({ kind }) => kind === 'detach') && batches.flat().some(({ kind }) => kind === 'refused'));
    const after = batches.flat().slice(1);
    assert.equal(
      after.map((message) => [message.kind, message.id]).sort(),
      [
        ['detach', 7],
        ['refused', 8],
      ],
      'the stream closes, and the refusal of the next attach goes',
    );
    assert.equal(after.find(({ kind }) => kind === 'detach'), { kind: 'detach', id: 7, reason: 'shutdown' });
    assert.equal(
      lines.map(({ msg, kind }) => [msg, kind]),
      [['a message to another front could not be copied', 'events']],
    );
  } finally {
    close();
  }
});

test.run();
