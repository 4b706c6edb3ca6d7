// The batches between the I/O thread and the realm thread: with a cap (the I/O thread's requests),
// a burst goes in batches as they fill, so the other thread starts on the first while the rest are
// made, and the last at the end of the turn; without one (the realm thread's events and answers),
// a turn's messages go together. Every message once, in order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchedPort } from '../src/threads/batchedPort.js';

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorded(cap?: number): { port: BatchedPort<number>; posts: number[][] } {
  const posts: number[][] = [];
  return { port: new BatchedPort<number>({ postMessage: (batch) => posts.push(batch as number[]) }, cap), posts };
}

const burst = Array.from({ length: 40 }, (_, n) => n);

test('with a cap, a burst goes in full batches at once and the rest at the end of the turn, in order', async () => {
  const { port, posts } = recorded(16);
  burst.forEach((n) => port.post(n));
  assert.is(posts.length, 2, 'two full batches went before the turn ended');
  await endOfTurn();
  assert.equal(posts.map((batch) => batch.length), [16, 16, 8]);
  assert.equal(posts.flat(), burst);
  port.post(40);
  await endOfTurn();
  assert.equal(posts.at(-1), [40], 'a message of a later turn goes at the end of that turn');
});

test("without a cap, a turn's messages go together at its end", async () => {
  const { port, posts } = recorded();
  burst.forEach((n) => port.post(n));
  assert.is(posts.length, 0);
  await endOfTurn();
  assert.equal(posts, [burst]);
});

test.run();
