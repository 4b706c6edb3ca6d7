// The chunked per-user message rows (src/store/userMessages.ts) checked against a plain map of rows
// under random sets, removals and batch updates across chunk boundaries and conversations. Seconds
// of random steps: here rather than in the default suite (test/store.test.ts holds the rest).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Store } from '../../src/store/store.js';
import { MAX_ENTRIES, RowChanges } from '../../src/store/userMessages.js';
import { random, removeStores, tempStorePath } from '../helpers/stores.js';

test('rows match a plain model through sets, removals, batches and ranges across chunks and conversations', async () => {
  const path = tempStorePath();
  const store = new Store(path);
  const next = random(7);
  // userId → recipientId → messageId → flags
  const model = new Map<number, Map<number, Map<number, number>>>();
  const rowsOf = (userId: number, recipientId: number) => model.get(userId)?.get(recipientId) ?? new Map<number, number>();
  const sorted = (rows: Map<number, number>) => [...rows.entries()].sort((a, b) => a[0] - b[0]);
  const ID_RANGE = MAX_ENTRIES * 12;
  // A message is in one conversation: recipient 10, 11 or 12 by its ID modulo 3.
  const idIn = (recipientId: number) => 3 * Math.floor(next() * (ID_RANGE / 3)) + (recipientId - 10) + 3;
  await store.write(() => {
    for (let step = 0; step < 4000; step++) {
      const userId = 1 + Math.floor(next() * 2);
      const recipientId = 10 + Math.floor(next() * 3);
      const conversation = rowsOf(userId, recipientId);
      if (!model.has(userId)) model.set(userId, new Map());
      model.get(userId)!.set(recipientId, conversation);
      const id = idIn(recipientId);
      const roll = next();
      if (roll < 0.6) {
        const flags = Math.floor(next() * 2048);
        store.userMessages.put(userId, recipientId, id, flags);
        conversation.set(id, flags);
      } else if (roll < 0.75) {
        assert.is(store.userMessages.take(userId, recipientId, [id]).get(id), conversation.get(id), 'take returns the flags the row had');
        conversation.delete(id);
      } else {
        // A batch over a few chunks, with a repeated ID (the last change wins) and removals.
        const changes: [number, number | undefined][] = [];
        for (let k = 0; k < 60; k++) changes.push([idIn(recipientId), next() < 0.2 ? undefined : Math.floor(next() * 2048)]);
        changes.push([changes[0]![0], 1]);
        store.userMessages.apply(userId, recipientId, RowChanges.of(changes));
        for (const [batchId, flags] of changes) {
          if (flags === undefined) conversation.delete(batchId);
          else conversation.set(batchId, flags);
        }
      }
      // Now and then the user's rows are read into memory, which later changes keep in step.
      if (step % 250 === 0) {
        const expected = [10, 11, 12].flatMap((recipient) => sorted(rowsOf(userId, recipient)).map(([rowId, flags]) => [rowId, flags, recipient])).sort((a, b) => a[0]! - b[0]!);
        assert.equal([...store.userMessages.range(userId, 0)], expected, `user ${userId}'s rows in memory at step ${step}`);
      }
    }
  });
  for (const userId of [1, 2]) {
    const merged: [number, number, number][] = [];
    for (const recipientId of [10, 11, 12]) {
      const expected = sorted(rowsOf(userId, recipientId));
      merged.push(...expected.map(([id, flags]) => [id, flags, recipientId] as [number, number, number]));
      assert.equal([...store.userMessages.conversationRange(userId, recipientId, 0)], expected, `user ${userId} conversation ${recipientId}`);
      const middle = Math.floor(ID_RANGE / 2) + 7;
      assert.equal([...store.userMessages.conversationRange(userId, recipientId, middle)], expected.filter(([id]) => id >= middle), 'forward from a point, inclusive');
      assert.equal([...store.userMessages.conversationRange(userId, recipientId, middle, true)], expected.filter(([id]) => id <= middle).reverse(), 'back from a point, inclusive');
      const read = store.userMessages.reader(userId, recipientId);
      for (let id = 1; id <= ID_RANGE + 3; id++) {
        assert.is(store.userMessages.get(userId, recipientId, id), rowsOf(userId, recipientId).get(id));
        assert.is(read(id), rowsOf(userId, recipientId).get(id));
      }
    }
    merged.sort((a, b) => a[0] - b[0] || a[2] - b[2]);
    const all = [...store.userMessages.range(userId, 0)];
    assert.equal(all.map(([id]) => id), merged.map(([id]) => id), `user ${userId}: conversations merged in order`);
    assert.equal([...store.userMessages.range(userId, Number.MAX_SAFE_INTEGER, true)].map(([id]) => id), merged.map(([id]) => id).reverse());
    assert.equal(store.userMessages.conversations(userId).sort(), [10, 11, 12]);
  }
  await store.close();
  removeStores(path);
});

test.run();
