// Emissions a server was not sent (in a cluster, the realm's owner knew of no queue on this node):
// the queues that may have wanted one are dropped, the others go on; a registration whose state is
// older than them is refused, so no queue ever opens with events missing. What the owner is told
// counts a registration under way as the queue it will open, so in the usual course none is sent
// without it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { holdingOf, type Holding } from '../src/events/holders.js';
import { EventQueues } from '../src/events/queues.js';
import { gone, HAMLET, opened, OTHELLO, REALM, refused, settings, shelf, status, texts } from './helpers/realmQueues.js';

test('a queue opened before emissions not sent here is dropped; one opened after the last of them goes on', () => {
  const queues = new EventQueues(shelf);
  queues.publish(REALM, [status('one')], 1);
  const before = opened(queues, HAMLET, 1);
  const after = opened(queues, OTHELLO, 4);
  queues.passOver(REALM, 4);
  queues.publish(REALM, [status('five')], 5);
  gone(queues, before, HAMLET, 'the queue that missed positions 2 to 4 is gone');
  assert.equal(texts(queues, after, OTHELLO), ['five']);
  assert.is(queues.position(REALM), 5);
});

test('a registration whose state is older than emissions not sent here is refused; one at or after them opens', () => {
  const queues = new EventQueues(shelf);
  const registration = queues.begin(REALM, HAMLET);
  queues.passOver(REALM, 3);
  refused(() => registration.open(settings, 2, 0), 'a queue at position 2 would lack position 3');
  registration.end();
  assert.not.ok(queues.hasQueue(REALM, HAMLET), 'no queue opened');

  const again = queues.begin(REALM, HAMLET);
  queues.publish(REALM, [status('four')], 4);
  const queue = again.open(settings, 3, 0);
  again.end();
  assert.equal(texts(queues, queue.id, HAMLET), ['four']);
});

test("a registration under way when the realm's events stop following on (a lost batch, a new owner) is refused with the queues dropped", () => {
  const queues = new EventQueues(shelf);
  opened(queues, OTHELLO, 0);
  const registration = queues.begin(REALM, HAMLET);
  queues.deleteRealmQueues(REALM);
  refused(() => registration.open(settings, 5, 0), 'its queue could lack the events lost');
  registration.end();
  assert.not.ok(queues.hasQueue(REALM, OTHELLO), 'the open queue is dropped too');
});

test("a user registering a queue holds one from the start: deleting their other queue meanwhile tells the owner so, not 'none'", () => {
  const queues = new EventQueues(shelf);
  const told: Holding[] = [];
  queues.onHoldersChanged = (realmId, userId) => told.push(holdingOf(queues, realmId, userId));
  const old = opened(queues, HAMLET, 0);
  const registration = queues.begin(REALM, HAMLET);
  queues.delete(queues.get(old, REALM, HAMLET));
  assert.equal(told.at(-1), 'queue', 'the registration under way still holds');
  assert.equal(queues.holders(REALM), [HAMLET]);
  registration.end();
  assert.equal(told.at(-1), 'none', 'ended without a queue');
  assert.equal(queues.holders(REALM), []);

  // Two registrations at once: the second, without all_public_streams, does not hide the first's.
  const everywhere = queues.begin(REALM, OTHELLO, true);
  const usual = queues.begin(REALM, OTHELLO);
  assert.is(holdingOf(queues, REALM, OTHELLO), 'all-public');
  everywhere.end();
  assert.is(holdingOf(queues, REALM, OTHELLO), 'queue');
  usual.end();
  assert.is(holdingOf(queues, REALM, OTHELLO), 'none');
});

test.run();
