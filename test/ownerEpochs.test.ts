// A realm's owner changes (a cluster's lease, a new epoch) and a node other than the new owner goes
// on serving its queues: each queue is of the owner whose state it opened on. Positions are each
// owner's own, so a queue of an earlier owner is dropped once a later one is known here (its
// client registers again), a state or a batch from a deposed owner is refused, and the first batch
// heard of an owner drops the queues whose emissions before it this node never heard.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventQueues } from '../src/events/queues.js';
import { gone, HAMLET, opened, OTHELLO, REALM, refused, settings, shelf, status, texts } from './helpers/realmQueues.js';

test("a node that never heard the realm's batches drops a queue once a new owner's batch comes, whatever its position", () => {
  const queues = new EventQueues(shelf);
  // The first owner answered at its position 5; its batches 1 to 5 went elsewhere, and it died.
  const queue = opened(queues, HAMLET, 5, 1);
  // The new owner counts from 1: delivered at its positions, the queue (opened at 5) would skip them.
  queues.receive(REALM, { epoch: 2, from: 1 }, [status('new owner')]);
  gone(queues, queue, HAMLET, 'the queue may lack what the first owner emitted after its state');
  const again = opened(queues, HAMLET, 1, 2);
  queues.receive(REALM, { epoch: 2, from: 2 }, [status('next')]);
  assert.equal(texts(queues, again, HAMLET), ['next']);
});

test("the first batch heard of an owner, or one that does not follow on, drops the queues opened before the emissions this node missed, and keeps the others", () => {
  const queues = new EventQueues(shelf);
  const early = opened(queues, HAMLET, 2, 1);
  const late = opened(queues, OTHELLO, 6, 1);
  // Positions 3 and 4 never arrived; 5 and 6 did, after the state at 6 was read.
  queues.receive(REALM, { epoch: 1, from: 5 }, [status('five'), status('six')]);
  gone(queues, early, HAMLET, 'the queue at 2 lacks positions 3 and 4');
  queues.receive(REALM, { epoch: 1, from: 7 }, [status('seven')]);
  assert.equal(texts(queues, late, OTHELLO), ['seven'], 'the queue at 6 takes what came after its state');

  // Within the owner's epoch, a batch that does not follow on (position 8 lost, or never sent)
  // drops the queues opened before it, and keeps one whose state has position 8.
  const current = opened(queues, HAMLET, 8, 1);
  queues.receive(REALM, { epoch: 1, from: 9 }, [status('nine')]);
  gone(queues, late, OTHELLO, 'position 8 was lost');
  assert.equal(texts(queues, current, HAMLET), ['nine']);

  // The owner's position told without emissions (it sent position 10 to no node): a queue from
  // before it is dropped, one whose state has it goes on.
  const told = opened(queues, OTHELLO, 10, 1);
  queues.receive(REALM, { epoch: 1, from: 11 }, []);
  gone(queues, current, HAMLET, 'position 10 was not sent here');
  queues.receive(REALM, { epoch: 1, from: 11 }, [status('eleven')]);
  assert.equal(texts(queues, told, OTHELLO), ['eleven']);
});

test("a state or a batch of a deposed owner is refused; a state of a new one drops the earlier owner's queues", () => {
  const queues = new EventQueues(shelf);
  queues.receive(REALM, { epoch: 1, from: 1 }, [status('one')]);
  const old = opened(queues, OTHELLO, 1, 1);
  // A registration answered by the next owner, before any of its batches arrived here.
  const current = opened(queues, HAMLET, 0, 2);
  gone(queues, old, OTHELLO, "the first owner's queue: its owner is deposed");

  const registration = queues.begin(REALM, OTHELLO);
  refused(() => registration.open(settings, 1, 1), 'a state of the deposed owner');
  registration.end();
  // The deposed owner's batch, late: not delivered, and it does not disturb the new owner's order.
  queues.receive(REALM, { epoch: 1, from: 2 }, [status('late')]);
  queues.receive(REALM, { epoch: 2, from: 1 }, [status('new owner')]);
  queues.receive(REALM, { epoch: 2, from: 2 }, [status('again')]);
  assert.equal(texts(queues, current, HAMLET), ['new owner', 'again']);
});

test('a registration under way when the owner changes gets only the new owner\'s emissions after its state', () => {
  const queues = new EventQueues(shelf);
  const registration = queues.begin(REALM, HAMLET);
  queues.receive(REALM, { epoch: 1, from: 1 }, [status('first owner')]);
  queues.receive(REALM, { epoch: 2, from: 1 }, [status('one'), status('two')]);
  const queue = registration.open(settings, 1, 2);
  registration.end();
  assert.equal(texts(queues, queue.id, HAMLET), ['two']);
});

test('a node that takes the realm over drops its queues of the earlier owner and counts from its own epoch', () => {
  const queues = new EventQueues(shelf);
  queues.receive(REALM, { epoch: 3, from: 40 }, [status('forty')]);
  const old = opened(queues, HAMLET, 40, 3);
  queues.newEpoch(REALM, 4);
  gone(queues, old, HAMLET, 'a queue of the earlier owner');
  assert.equal([queues.epoch(REALM), queues.position(REALM)], [4, 0]);
  const queue = opened(queues, HAMLET, 0, 4);
  queues.publish(REALM, [status('mine')]);
  assert.equal(texts(queues, queue, HAMLET), ['mine']);
  queues.receive(REALM, { epoch: 3, from: 41 }, [status('late')]);
  assert.equal(texts(queues, queue, HAMLET), ['mine'], "the earlier owner's late batch is ignored");
});

test('an owner that hears of a later one gives no position and publishes nothing: its numbers would be read as the later owner\'s', () => {
  const queues = new EventQueues(shelf);
  queues.newEpoch(REALM, 1);
  assert.is(queues.publishOwn(REALM, 1, [status('one'), status('two')]), 1);
  assert.is(queues.ownPosition(REALM, 1), 2);
  // Deposed while paused: the next owner's first batch arrives.
  queues.receive(REALM, { epoch: 2, from: 1 }, [status('new owner')]);
  refused(() => queues.ownPosition(REALM, 1), "a state at the deposed owner's position");
  const queue = opened(queues, HAMLET, 1, 2);
  assert.is(queues.publishOwn(REALM, 1, [status('late write')]), undefined);
  queues.receive(REALM, { epoch: 2, from: 2 }, [status('two')]);
  assert.equal(texts(queues, queue, HAMLET), ['two'], "the deposed owner's emission neither reached the queue nor moved its positions");
  // Nor does a node that took the realm long ago go back to its epoch.
  queues.newEpoch(REALM, 1);
  assert.is(queues.epoch(REALM), 2);
  assert.equal(texts(queues, queue, HAMLET), ['two']);
});

test("after its connection broke, a node drops its queues of other nodes' realms, refuses registrations under way, and takes the next batch as the first heard", () => {
  const queues = new EventQueues(shelf);
  const OWNED = 2;
  queues.receive(REALM, { epoch: 1, from: 1 }, [status('one')]);
  const before = opened(queues, HAMLET, 1, 1);
  queues.newEpoch(OWNED, 1);
  const registration = queues.begin(OWNED, OTHELLO);
  const mine = registration.open(settings, queues.ownPosition(OWNED, 1), 1);
  registration.end();
  const underWay = queues.begin(REALM, OTHELLO);
  queues.lostTrack((realmId) => realmId === OWNED);
  gone(queues, before, HAMLET, 'position 2 may have been sent while the connection was broken');
  refused(() => underWay.open(settings, 3, 1), 'its state may be after emissions lost');
  underWay.end();
  assert.ok(queues.get(mine.id, OWNED, OTHELLO), "the queue of a realm this node owns stays");
  // Registered again once connected: the next batch follows on from its state, not from position 1.
  const after = opened(queues, HAMLET, 5, 1);
  queues.receive(REALM, { epoch: 1, from: 6 }, [status('six')]);
  assert.equal(texts(queues, after, HAMLET), ['six']);
});

test.run();
