// A cluster's blocks of IDs (src/cluster/ids.ts) over counters in memory: a write that wants more
// IDs at once than its realm's block has left is refused before it takes one, and the realm's
// next block holds what it wanted, however many that is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IdBlocks } from '../src/cluster/ids.js';
import { IdsExhausted } from '../src/realm/log.js';
import { MemoryIdCounters } from './helpers/memoryIdCounters.js';

const REALM = 7;

test('a write wanting more IDs than the block holds is refused, and the next block holds them', async () => {
  const blocks = new IdBlocks(new MemoryIdCounters());
  assert.not.ok(blocks.ready(REALM), 'a realm starts with no blocks');
  await blocks.topUp(REALM);
  assert.ok(blocks.ready(REALM));
  const ids = blocks.sourceFor(REALM);
  const first = ids.next('notification');
  ids.ensure('notification', 500);
  assert.throws(() => ids.ensure('notification', 5000), (error: unknown) => error instanceof IdsExhausted);
  assert.is(ids.next('notification'), first + 1, 'the refused write took no ID');
  assert.not.ok(blocks.ready(REALM), 'the realm tops up before its next write');
  await blocks.topUp(REALM);
  ids.ensure('notification', 5000);
  const taken = Array.from({ length: 5000 }, () => ids.next('notification'));
  assert.ok(taken[0]! > first + 1, 'the new block lies above the old one');
  assert.is(new Set(taken).size, 5000);
  assert.ok(blocks.ready(REALM), 'the block kept its headroom beyond what was wanted');
});

test("two nodes' blocks never overlap, and a realm's IDs keep increasing", async () => {
  const counters = new MemoryIdCounters();
  const [one, two] = [new IdBlocks(counters), new IdBlocks(counters)];
  await one.topUp(REALM);
  await two.topUp(REALM + 1);
  const fromOne = Array.from({ length: 1000 }, () => one.sourceFor(REALM).next('user'));
  const fromTwo = Array.from({ length: 1000 }, () => two.sourceFor(REALM + 1).next('user'));
  assert.is(new Set([...fromOne, ...fromTwo]).size, 2000);
  assert.throws(() => one.sourceFor(REALM).next('user'), (error: unknown) => error instanceof IdsExhausted);
  await one.topUp(REALM);
  assert.ok(one.sourceFor(REALM).next('user') > Math.max(...fromTwo));
});

test.run();
