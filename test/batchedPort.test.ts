// The batches between the I/O thread and the realm thread: a burst is cut into batches that go as
// they fill (the other thread starts on the first while the rest are made), the last at the end of
// the turn, every message once and in order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchedPort } from '../src/threads/batchedPort.js';

test('a burst goes in full batches at once and the rest at the end of the turn, in order', async () => {
  const posts: number[][] = [];
  const port = new BatchedPort<number>({ postMessage: (batch) => posts.push(batch as number[]) });
  const burst = Array.from({ length: 40 }, (_, n) => n);
  burst.forEach((n) => port.post(n));
  const beforeTurnEnds = posts.length;
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(beforeTurnEnds, 2, 'two full batches went before the turn ended');
  assert.equal(posts.map((batch) => batch.length), [16, 16, 8]);
  assert.equal(posts.flat(), burst);
  port.post(40);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(posts.at(-1), [40], 'a message of a later turn goes at the end of that turn');
});

test.run();
