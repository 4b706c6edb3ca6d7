// The store's message indexes: the chunked per-user message rows (src/store/userMessages.ts),
// checked against a plain map of rows under random sets, removals and batch updates across chunk
// boundaries; and the one-time migrations of data directories written before the chunked rows
// and the topic index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Store } from '../src/store/store.js';
import { SPAN } from '../src/store/userMessages.js';

function tempStorePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'parley-store-')), 'parley.mdb');
}

/** A deterministic pseudo-random sequence (the same rows every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

test('rows match a plain model through sets, removals, batches and ranges across chunks', async () => {
  const path = tempStorePath();
  const store = new Store(path);
  const next = random(7);
  const model = new Map<number, Map<number, number>>();
  const rows = (userId: number) => [...(model.get(userId) ?? new Map<number, number>()).entries()].sort((a, b) => a[0] - b[0]);
  await store.write(() => {
    for (let step = 0; step < 3000; step++) {
      const userId = 1 + Math.floor(next() * 3);
      const user = model.get(userId) ?? new Map<number, number>();
      model.set(userId, user);
      const id = Math.floor(next() * SPAN * 6);
      const roll = next();
      if (roll < 0.6) {
        const flags = Math.floor(next() * 2048);
        store.userMessages.put(userId, id, flags);
        user.set(id, flags);
      } else if (roll < 0.75) {
        store.userMessages.remove(userId, id);
        user.delete(id);
      } else {
        // A batch over a few chunks, with a repeated ID (the last change wins) and removals.
        const changes: [number, number | undefined][] = [];
        for (let k = 0; k < 40; k++) {
          const batchId = id + Math.floor(next() * SPAN * 2);
          const flags = next() < 0.2 ? undefined : Math.floor(next() * 2048);
          changes.push([batchId, flags]);
        }
        changes.push([changes[0]![0], 1]);
        store.userMessages.apply(userId, changes);
        for (const [batchId, flags] of changes) {
          if (flags === undefined) user.delete(batchId);
          else user.set(batchId, flags);
        }
      }
    }
  });
  for (const userId of [1, 2, 3]) {
    const expected = rows(userId);
    assert.equal([...store.userMessages.range(userId, 0)], expected, `user ${userId} forward`);
    assert.equal([...store.userMessages.range(userId, Number.MAX_SAFE_INTEGER, true)], [...expected].reverse(), `user ${userId} reverse`);
    const middle = SPAN * 3 + 7;
    assert.equal([...store.userMessages.range(userId, middle)], expected.filter(([id]) => id >= middle), 'forward from a point, inclusive');
    assert.equal([...store.userMessages.range(userId, middle, true)], expected.filter(([id]) => id <= middle).reverse(), 'back from a point, inclusive');
    const read = store.userMessages.reader(userId);
    for (let id = 0; id < SPAN * 8; id += 3) {
      assert.is(store.userMessages.get(userId, id), model.get(userId)?.get(id));
      assert.is(read(id), model.get(userId)?.get(id));
    }
  }
  await store.close();
  rmSync(dirname(path), { recursive: true, force: true });
});

test('a data directory with one row per user and message is migrated to chunks at open', async () => {
  const path = tempStorePath();
  const env = open({ path, maxDbs: 64 });
  const old = env.openDB<number, [number, number]>({ name: 'userMessages' });
  await old.transaction(() => {
    for (let id = 1; id <= 1500; id++) old.put([4, id], id % 3 === 0 ? 1 : 0);
    old.put([5, 700], 2 | 1024);
  });
  await env.close();

  const store = new Store(path);
  assert.is([...store.userMessages.range(4, 0)].length, 1500);
  assert.is(store.userMessages.get(4, 999), 1);
  assert.is(store.userMessages.get(4, 1000), 0);
  assert.equal([...store.userMessages.range(5, 0)], [[700, 2 | 1024]]);
  await store.close();

  const reopened = new Store(path);
  assert.is([...reopened.userMessages.range(4, 0)].length, 1500, 'migrated once; nothing lost on the next open');
  await reopened.close();
  rmSync(dirname(path), { recursive: true, force: true });
});

test('a rolled-back write leaves no header of its own behind (the header cache forgets it)', async () => {
  const path = tempStorePath();
  const store = new Store(path);
  const message = { id: 7, realmId: 1, senderId: 2, recipientId: 3, type: 'stream' as const, channelId: 4, topic: 'committed', participants: [], content: 'x', renderedContent: '<p>x</p>', timestamp: 0, client: 'test' };
  await store.write(() => store.saveMessage(message));
  assert.is(store.messageHeader(7)?.topic, 'committed');
  let failed = false;
  await store
    .write(() => {
      store.saveMessage({ ...message, topic: 'rolled back' });
      assert.is(store.messageHeader(7)?.topic, 'rolled back', 'the write sees its own change');
      throw new Error('abort');
    })
    .catch(() => (failed = true));
  assert.ok(failed);
  assert.is(store.messageHeader(7)?.topic, 'committed');
  await store.close();
  rmSync(dirname(path), { recursive: true, force: true });
});

test('the sender index: kept by saves and removals, built once at open for older data directories', async () => {
  const path = tempStorePath();
  const env = open({ path, maxDbs: 64 });
  const messages = env.openDB<Record<string, unknown>, number>({ name: 'messages' });
  const record = (id: number, senderId: number) => ({ id, realmId: 1, senderId, recipientId: 3, type: 'private', channelId: null, topic: '', participants: [senderId], content: 'x', renderedContent: '<p>x</p>', timestamp: 0, client: 'test' });
  await messages.transaction(() => {
    messages.put(1, record(1, 5));
    messages.put(2, record(2, 6));
    messages.put(3, record(3, 5));
  });
  await env.close();
  const store = new Store(path);
  assert.equal([...store.sentBy(5)], [1, 3]);
  await store.write(() => {
    store.removeMessage(1);
    store.saveMessage({ ...record(4, 5), type: 'private' as const });
  });
  assert.equal([...store.sentBy(5)], [3, 4]);
  assert.equal([...store.sentBy(6)], [2]);
  await store.close();
  rmSync(dirname(path), { recursive: true, force: true });
});

test('a data directory without the topic index gets it built from the channel index at open', async () => {
  const path = tempStorePath();
  const env = open({ path, maxDbs: 64 });
  const channelMessages = env.openDB<string, [number, number]>({ name: 'channelMessages' });
  await channelMessages.transaction(() => {
    channelMessages.put([3, 10], 'Plans');
    channelMessages.put([3, 11], 'other');
    channelMessages.put([3, 12], 'plans');
  });
  await env.close();
  const store = new Store(path);
  assert.equal([...store.topicRange(3, 'plans', 0)], [[10, 'Plans'], [12, 'plans']]);
  assert.equal([...store.topicRange(3, 'plans', 11, true)], [[10, 'Plans']]);
  assert.ok(store.topicHasMessages(3, 'other'));
  assert.not.ok(store.topicHasMessages(3, 'none'));
  await store.close();
  rmSync(dirname(path), { recursive: true, force: true });
});

test.run();
