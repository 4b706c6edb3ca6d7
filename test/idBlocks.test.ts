// A cluster's blocks of IDs (src/cluster/ids.ts) over counters in memory: a write that wants more
// IDs at once than its realm's blocks have left is refused before it takes one, and from then on
// the realm keeps room for that many before each write, however many it is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IdBlocks, type IdCounters } from '../src/cluster/ids.js';
import { IdsExhausted } from '../src/realm/log.js';
import { MemoryIdCounters } from './helpers/memoryIdCounters.js';

const REALM = 7;
const exhausted = (error: unknown) => error instanceof IdsExhausted;

/** Counters in memory whose reads wait, once `hold` is called, until the function it gave back is. */
function gatedCounters(memory = new MemoryIdCounters()) {
  let gate: Promise<void> = Promise.resolve();
  const counters: IdCounters = {
    get: async (kind) => {
      await gate;
      return memory.get(kind);
    },
    update: (kind, value, revision) => memory.update(kind, value, revision),
    create: (kind, value) => memory.create(kind, value),
  };
  const hold = (): (() => void) => {
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    return release;
  };
  return { counters, hold };
}

test('a write wanting more IDs than the blocks hold is refused, and the next block holds them beside what was left', async () => {
  const blocks = new IdBlocks(new MemoryIdCounters());
  assert.not.ok(blocks.ready(REALM), 'a realm starts with no blocks');
  await blocks.topUp(REALM);
  assert.ok(blocks.ready(REALM));
  const ids = blocks.sourceFor(REALM);
  const first = ids.next('notification');
  ids.ensure('notification', 500);
  assert.throws(() => ids.ensure('notification', 5000), exhausted);
  assert.is(ids.next('notification'), first + 1, 'the refused write took no ID');
  assert.not.ok(blocks.ready(REALM), 'the realm tops up before its next write');
  await blocks.topUp(REALM);
  ids.ensure('notification', 5000);
  const taken = Array.from({ length: 5000 }, () => ids.next('notification'));
  assert.is(taken[0], first + 2, 'what was left of the old block goes first');
  assert.ok(taken.every((id, at) => at === 0 || id > taken[at - 1]!), 'IDs keep increasing across blocks');
});

test('a realm whose writes each make sure of many IDs but take few is refused once, not every time its blocks run low', async () => {
  const blocks = new IdBlocks(new MemoryIdCounters());
  await blocks.topUp(REALM);
  const ids = blocks.sourceFor(REALM);
  let refused = 0;
  for (let write = 0; write < 3000; write++) {
    // As the actor does before each write.
    if (!blocks.ready(REALM)) await blocks.topUp(REALM);
    try {
      ids.ensure('notification', 5000);
      for (let taken = 0; taken < 5; taken++) ids.next('notification');
    } catch (error) {
      assert.ok(exhausted(error));
      refused++;
    }
  }
  assert.is(refused, 1, 'only the first, before the realm knew how many its writes want');
});

test('a write that takes more IDs than a block without making sure of them first goes through in a few tries', async () => {
  const blocks = new IdBlocks(new MemoryIdCounters());
  // As the actor runs a write: blocks topped up first, a source of its own each try.
  const write = async (): Promise<number[]> => {
    if (!blocks.ready(REALM)) await blocks.topUp(REALM);
    const ids = blocks.sourceFor(REALM);
    return Array.from({ length: 3000 }, () => ids.next('user'));
  };
  let tries = 0;
  let users: number[] | undefined;
  while (!users && tries < 10) {
    tries++;
    users = await write().catch((error: unknown) => {
      assert.ok(exhausted(error));
      return undefined;
    });
  }
  assert.ok(users && tries <= 3, `${tries} tries`);
  assert.is(new Set(users).size, 3000);
});

test('a want made while a block is being taken is kept: the realm tops up again before its next write', async () => {
  const { counters, hold } = gatedCounters();
  const blocks = new IdBlocks(counters);
  await blocks.topUp(REALM);
  const ids = blocks.sourceFor(REALM);
  assert.throws(() => ids.ensure('notification', 2000), exhausted);
  const release = hold();
  const topping = blocks.topUp(REALM);
  // A write already in LMDB's batch wants more meanwhile.
  assert.throws(() => ids.ensure('notification', 5000), exhausted);
  release();
  await topping;
  assert.not.ok(blocks.ready(REALM), 'the realm still wants room for 5000');
  await blocks.topUp(REALM);
  ids.ensure('notification', 5000);
});

test('a realm forgotten while it takes blocks (it left the node) comes back with fresh ones: its IDs never go back', async () => {
  const memory = new MemoryIdCounters();
  const { counters, hold } = gatedCounters(memory);
  const [here, there] = [new IdBlocks(counters), new IdBlocks(memory)];
  const release = hold();
  const topping = here.topUp(REALM);
  here.forget(REALM);
  release();
  await topping;
  // Another node owns the realm meanwhile and sends.
  await there.topUp(REALM);
  const theirs = there.sourceFor(REALM).next('message');
  // Back here, the realm starts over above what the other node gave.
  assert.not.ok(here.ready(REALM), 'nothing of the forgotten blocks is kept');
  await here.topUp(REALM);
  assert.ok(here.sourceFor(REALM).next('message') > theirs);
});

test("two nodes' blocks never overlap, and a realm's IDs keep increasing", async () => {
  const counters = new MemoryIdCounters();
  const [one, two] = [new IdBlocks(counters), new IdBlocks(counters)];
  await one.topUp(REALM);
  await two.topUp(REALM + 1);
  const fromOne = Array.from({ length: 1000 }, () => one.sourceFor(REALM).next('user'));
  const fromTwo = Array.from({ length: 1000 }, () => two.sourceFor(REALM + 1).next('user'));
  assert.is(new Set([...fromOne, ...fromTwo]).size, 2000);
  assert.throws(() => one.sourceFor(REALM).next('user'), exhausted);
  await one.topUp(REALM);
  assert.ok(one.sourceFor(REALM).next('user') > Math.max(...fromTwo));
});

test.run();
