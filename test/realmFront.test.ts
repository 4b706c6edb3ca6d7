// A front of several reads a queue only after taking what the realm thread already posted it: ports
// keep no order between them, so a client that wrote through another front (whose answer came after
// the realm thread posted this front the write's events) may read here before this front's event
// loop took them off its port. And every front's queues answer the server's generation, and drop
// those of a realm whose emissions the realm thread could not copy to them, once the later ones do
// not follow on.
import { MessageChannel } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { QueueCounts } from '../src/events/queueCounts.js';
import { RealmFront } from '../src/threads/realmsThread.js';
import type { FromRealmThread, Published } from '../src/threads/protocol.js';
import { gone, HAMLET, opened, OTHELLO, REALM, status, texts } from './helpers/realmQueues.js';
import { testConfig, waitFor } from './helpers/server.js';

test("a queue read on one of several fronts has the events a realm thread posted before the read, though the event loop has not run", () => {
  const shard0 = new MessageChannel();
  const { port1: realmSide, port2 } = new MessageChannel();
  // Two realm threads: the realm's is the second.
  const front = new RealmFront(testConfig(), [shard0.port2, port2], 1, 2, new QueueCounts(), 1_796_000_000);
  assert.is(front.queues.serverGeneration, 1_796_000_000, "register answers the server's generation, not when this front started");
  const queue = opened(front.queues, HAMLET, 0);
  const batch: FromRealmThread[] = [{ kind: 'events', published: [{ realmId: REALM, from: 1, emissions: [status('posted before the read')] }] }];
  realmSide.postMessage(batch);
  assert.equal(texts(front.queues, queue, HAMLET), ['posted before the read']);
  realmSide.close();
  shard0.port1.close();
});

test("a realm's emissions that do not follow on pass over those the realm thread could not copy: the queues opened before them are dropped (their clients register again), later ones go on", async () => {
  const { port1: realmSide, port2 } = new MessageChannel();
  const front = new RealmFront(testConfig(), [port2], 0, 1, new QueueCounts(), 1_796_000_000);
  const before = opened(front.queues, HAMLET, 0);
  const post = (published: Published) => realmSide.postMessage([{ kind: 'events', published: [published] }] satisfies FromRealmThread[]);
  post({ realmId: REALM, from: 1, emissions: [status('one')] });
  await waitFor(() => front.queues.position(REALM) === 1);
  assert.equal(texts(front.queues, before, HAMLET), ['one']);
  // Positions 2 and 3 could not be copied: they come as none, at position 4.
  post({ realmId: REALM, from: 4, emissions: [] });
  await waitFor(() => front.queues.position(REALM) === 3);
  gone(front.queues, before, HAMLET, 'a queue that may lack events 2 and 3 is dropped');
  const after = opened(front.queues, OTHELLO, 3);
  post({ realmId: REALM, from: 4, emissions: [status('four')] });
  await waitFor(() => front.queues.position(REALM) === 4);
  assert.equal(texts(front.queues, after, OTHELLO), ['four'], 'a queue opened after them goes on');
  realmSide.close();
});

test.run();
