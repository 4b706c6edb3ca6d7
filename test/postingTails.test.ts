// The full-text index appends a write batch's new messages to each term's last chunk, where memory
// remembers it is (src/store/postingLists.ts). Should memory hold a last chunk the store does not
// (a write rolled back before memory was told to forget), the chunk is read again: the next write
// neither fails nor stores a wrong ID, whether memory's chunk is longer than the stored one, missing
// from the store, or as long and ending otherwise.
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PostingLists, startsChunk } from '../src/store/postingLists.js';
import { removeStores, tempStorePath } from './helpers/stores.js';

test("a term's last chunk that memory remembers from a rolled-back write is read again: appending to it stores the right IDs, and to a chunk that was never kept does not fail", () => {
  const path = tempStorePath();
  const env = open({ path, maxDbs: 2 });
  const lists = new PostingLists(env.openDB<Buffer, [number, string, number]>({ name: 'searchChunks', encoding: 'binary' }));
  // IDs that join the chunk before them: the appends to a remembered chunk.
  assert.not.ok([2, 3, 4, 5, 6].some(startsChunk));
  env.transactionSync(() => lists.add(1, 'walrus', [1, 2]));
  assert.throws(() =>
    env.transactionSync(() => {
      lists.add(1, 'walrus', [3]);
      lists.add(1, 'orca', [3]);
      throw new Error('rolled back');
    }),
  );
  env.transactionSync(() => {
    lists.add(1, 'walrus', [4]);
    lists.add(1, 'orca', [4]);
  });
  assert.equal([...lists.holding(1, 'walrus', 0, false)], [1, 2, 4], 'appended after the stored last ID, not the one memory had');
  assert.equal([...lists.holding(1, 'orca', 0, false)], [4], 'the term begun by the rolled-back write starts anew');
  // A rolled-back write that took the last ID out and put a later one in: the chunk as memory had it
  // is as long as the stored one, and ends otherwise.
  assert.throws(() =>
    env.transactionSync(() => {
      lists.remove(1, 'walrus', [4]);
      lists.add(1, 'walrus', [5]);
      throw new Error('rolled back');
    }),
  );
  env.transactionSync(() => lists.add(1, 'walrus', [6]));
  assert.equal([...lists.holding(1, 'walrus', 0, false)], [1, 2, 4, 6]);
  void env.close().then(() => removeStores(path));
});

test.run();
