// The batches between the fronts and the realm thread: a front's requests go in batches as they
// fill, so the realm thread starts on the first while the rest are made, and the last at the end of
// the turn; the realm thread's go once a turn to each front, the emissions first. Every message
// once, in order. What cannot be copied is refused alone (a front's request), or replaced where it
// was (the realm thread's: a reply by an internal error, a realm's emissions by none).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deserialize } from 'node:v8';
import { MessageChannel } from 'node:worker_threads';
import type { Emitted } from '../src/events/types.js';
import { BatchedPort } from '../src/threads/batchedPort.js';
import { Front, FrontsOutbox } from '../src/threads/fronts.js';
import type { FromRealmThread, Published } from '../src/threads/protocol.js';
import { capturedLog } from './helpers/logs.js';
import { nestedArrays } from './helpers/nesting.js';
import { waitFor } from './helpers/server.js';

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorded(cap: number): { port: BatchedPort<number>; posts: number[][] } {
  const posts: number[][] = [];
  return { port: new BatchedPort<number>({ postMessage: (batch) => posts.push(batch as number[]) }, cap, () => assert.unreachable('nothing is refused')), posts };
}

/** Deeper than a structured copy goes (a client's JSON is bounded far below it, http/json.ts). */
const tooDeep = (): unknown => JSON.parse(nestedArrays(20_000));

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

test('a message that cannot be copied is refused alone: the rest of its batch goes, in order, and the thread goes on', async () => {
  const { port1, port2 } = new MessageChannel();
  const heard: unknown[] = [];
  port2.on('message', (batch: unknown[]) => heard.push(...batch));
  const refused: unknown[] = [];
  const port = new BatchedPort<unknown>(port1, 4, (message, error) => refused.push([message, (error as Error).name]));
  const deep = tooDeep();
  for (const message of ['a', 'b', deep, 'c', 'd', 'e']) port.post(message);
  await waitFor(() => heard.length === 5);
  assert.equal(heard, ['a', 'b', 'c', 'd', 'e']);
  assert.equal(refused, [[deep, 'RangeError']]);
  port1.close();
  port2.close();
});

test("the realm thread's posts to its fronts: the turn's emissions to every front, encoded once for all of several, before any front's own, each front's own after its emissions", async () => {
  const channels = [new MessageChannel(), new MessageChannel(), new MessageChannel()];
  // The order of the posts to all fronts: a client answered through one front may read at once on another.
  const posted: [front: number, kinds: string[]][] = [];
  const outbox = new FrontsOutbox(
    channels.map(({ port1 }, index) => {
      const post = port1.postMessage.bind(port1);
      port1.postMessage = (batch: FromRealmThread[]) => {
        posted.push([index, batch.map((message) => message.kind)]);
        post(batch);
      };
      return new Front(index, port1);
    }),
    capturedLog('error').log,
  );
  const heard = channels.map(({ port2 }) => {
    const messages: FromRealmThread[] = [];
    port2.on('message', (batch: FromRealmThread[]) => messages.push(...batch));
    return messages;
  });
  const [main, second, third] = outbox.fronts as [Front, Front, Front];
  outbox.post(second, { kind: 'reply', seq: 1, reply: { ok: 'second' } });
  outbox.publish({ realmId: 1, from: 1, emissions: [] });
  outbox.post(main, { kind: 'reply', seq: 1, reply: { ok: 'main' } });
  outbox.post(third, { kind: 'reply', seq: 1, reply: { ok: 'third' } });
  outbox.publish({ realmId: 2, from: 5, emissions: [] });
  await waitFor(() => heard.every((messages) => messages.length === 2));
  const firstAnswer = posted.findIndex(([, kinds]) => kinds.includes('reply'));
  const lastEvents = posted.map(([, kinds]) => kinds.includes('events')).lastIndexOf(true);
  assert.ok(lastEvents <= firstAnswer, `every front's emissions before any answer: ${JSON.stringify(posted)}`);
  assert.is(posted.length, 5, 'one post a front, and one more for each front but one that has both');
  for (const [index, [events, own]] of heard.entries()) {
    assert.ok(events?.kind === 'events' && 'encoded' in events, `front ${index}: the emissions, encoded`);
    assert.equal((deserialize(events.encoded) as Published[]).map(({ realmId, from }) => [realmId, from]), [[1, 1], [2, 5]]);
    assert.equal(own, { kind: 'reply', seq: 1, reply: { ok: ['main', 'second', 'third'][index] } });
  }

  // A turn with answers for one front only: one post to each front, that front's last.
  posted.length = 0;
  outbox.publish({ realmId: 1, from: 2, emissions: [] });
  outbox.post(second, { kind: 'reply', seq: 2, reply: { ok: 'second again' } });
  await waitFor(() => heard.map((messages) => messages.length).join() === '3,4,3');
  assert.equal(posted, [
    [0, ['events']],
    [2, ['events']],
    [1, ['events', 'reply']],
  ]);
  for (const { port1, port2 } of channels) {
    port1.close();
    port2.close();
  }
});

for (const fronts of [1, 3]) {
  test(`with ${fronts} front(s), what cannot be copied to a front is replaced, in its place, by what can be: a reply by an internal error, a realm's emissions by none at the position after them; the rest goes and the thread goes on`, async () => {
    const channels = Array.from({ length: fronts }, () => new MessageChannel());
    const { log, lines } = capturedLog<{ msg: string }>('error');
    const outbox = new FrontsOutbox(
      channels.map(({ port1 }, index) => new Front(index, port1)),
      log,
    );
    const heard = channels.map(({ port2 }) => {
      const messages: FromRealmThread[] = [];
      port2.on('message', (batch: FromRealmThread[]) => messages.push(...batch));
      return messages;
    });
    const front = outbox.fronts[0]!;
    // A status text too deep to copy stands for any bug that puts such a value in an event.
    const emitted = (text: unknown): Emitted => ({ event: { type: 'user_status', user_id: 10, status_text: text as string }, userIds: [10] });
    outbox.publish({ realmId: 1, from: 1, emissions: [emitted('before')] });
    outbox.publish({ realmId: 2, from: 7, emissions: [emitted(tooDeep()), emitted('lost with it')] });
    outbox.publish({ realmId: 1, from: 2, emissions: [emitted('after')] });
    outbox.post(front, { kind: 'reply', seq: 1, reply: { ok: 'first' } });
    outbox.post(front, { kind: 'reply', seq: 2, reply: { ok: tooDeep() } });
    outbox.post(front, { kind: 'reply', seq: 3, reply: { ok: 'third' } });
    await waitFor(() => heard[0]!.filter((message) => message.kind === 'reply').length === 3 && heard.every((messages) => messages.some((message) => message.kind === 'events')));
    await waitFor(() => lines.length === 2);
    for (const [index, messages] of heard.entries()) {
      const published = messages.flatMap((message) => (message.kind !== 'events' ? [] : 'encoded' in message ? (deserialize(message.encoded) as Published[]) : message.published));
      assert.equal(
        published.map(({ realmId, from, emissions }) => [realmId, from, emissions.map(({ event }) => (event as { status_text: unknown }).status_text)]),
        [
          [1, 1, ['before']],
          [2, 9, []],
          [1, 2, ['after']],
        ],
        `front ${index}: realm 2's emissions passed over, the others as they were`,
      );
    }
    const replies = heard[0]!.flatMap((message) => (message.kind === 'reply' ? [[message.seq, message.reply]] : []));
    assert.equal(replies, [
      [1, { ok: 'first' }],
      [2, { error: null }],
      [3, { ok: 'third' }],
    ]);
    assert.equal(lines.map(({ msg }) => msg).sort(), ['a message could not be copied to a front', "a realm's emissions could not be copied to its fronts: its queues are dropped"]);
    for (const { port1, port2 } of channels) {
      port1.close();
      port2.close();
    }
  });
}

test.run();
