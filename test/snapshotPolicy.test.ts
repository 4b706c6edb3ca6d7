// When a cluster realm's owner snapshots it (src/cluster/snapshots.ts): after PARLEY_SNAPSHOT_EVERY
// log messages, once the log has grown by PARLEY_SNAPSHOT_GROWTH percent of the last snapshot's
// size, so that a large realm is not rewritten whole every thousand messages.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { snapshotDue } from '../src/cluster/snapshots.js';

const every = 1000;

test("a realm without a snapshot gets one after PARLEY_SNAPSHOT_EVERY log messages, whatever their size", () => {
  assert.is(snapshotDue({ messages: 999, bytes: 10_000_000 }, 0, every, 100), false);
  assert.is(snapshotDue({ messages: 1000, bytes: 1 }, 0, every, 100), true);
});

test("after a snapshot, the next waits until the log is as large as it (100 %), however many messages came", () => {
  const snapshot = 50_000_000;
  assert.is(snapshotDue({ messages: 20_000, bytes: snapshot - 1 }, snapshot, every, 100), false);
  assert.is(snapshotDue({ messages: 20_000, bytes: snapshot }, snapshot, every, 100), true);
  assert.is(snapshotDue({ messages: 999, bytes: 2 * snapshot }, snapshot, every, 100), false, 'the count of messages still holds');
});

test('the growth is a percentage: 50 halves the bytes awaited, 0 snapshots by count alone', () => {
  assert.is(snapshotDue({ messages: 1000, bytes: 50 }, 100, every, 50), true);
  assert.is(snapshotDue({ messages: 1000, bytes: 49 }, 100, every, 50), false);
  assert.is(snapshotDue({ messages: 1000, bytes: 0 }, 100, every, 0), true);
});

test.run();
