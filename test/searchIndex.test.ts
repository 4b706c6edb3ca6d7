// The full-text index's storage from before the chunks (format 6, a row per posting): a data
// directory indexed anew at open, a change set applied to the chunks, a copy that replayed such
// change sets agreeing with one indexed anew; change sets of today, which carry no postings,
// indexed by the copy that applies them. The posting lists' model check, which takes seconds,
// is in the fault tier (test/faults/postingLists.fault.ts).
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSearch } from '../src/messages/search.js';
import { changeCodec, type Change } from '../src/store/changes.js';
import { CHUNK_SPACING, startsChunk } from '../src/store/postingLists.js';
import { realmDigest } from '../src/store/realmData.js';
import { message, removeStores, tempStorePath, testStore } from './helpers/stores.js';

test('a data directory from before the chunks (a posting a row) is indexed anew at open; the old rows go', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  await store.write(() => {
    store.saveMessage(message(20, 'walrus'));
    store.saveMessage(message(21, 'narwhal walrus'));
  });
  await store.close();
  // Format 6: the postings a row each in searchPostings, no chunks.
  const env = open({ path, maxDbs: 64 });
  await env.openDB({ name: 'searchChunks' }).clearAsync();
  const old = env.openDB<boolean, [number, string, number]>({ name: 'searchPostings' });
  for (const [term, id] of [['walrus', 20], ['narwhal', 21], ['walrus', 21]] as const) await old.put([1, term, id], true);
  await env.openDB({ name: 'meta' }).put('storeFormat', 6);
  await env.close();

  const reopened = testStore(path);
  assert.is(reopened.migratedFrom, 6);
  assert.equal([...reopened.search.matches(1, parseSearch('walrus'), 0, false)], [20, 21]);
  assert.equal([...reopened.search.matches(1, parseSearch('narwhal'), 0, false)], [21]);
  assert.is(reopened.env.openDB({ name: 'searchPostings' }).getKeysCount(), 0);
  await reopened.close();
  removeStores(path);
});

test('a change set from before the chunks (a snapshot or log naming searchPostings) is applied to them', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const posting = (id: number, word: string, put: boolean): Change => (put ? ['searchPostings', [1, word, id], changeCodec.pack(true)] : ['searchPostings', [1, word, id]]);
  await store.applyChanges([posting(30, 'orca', true), posting(31, 'orca', true), posting(31, 'beluga', true)], { form: 'change' });
  assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], [30, 31]);
  await store.applyChanges([posting(30, 'orca', false)], { form: 'change' });
  assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], [31]);
  assert.equal([...store.search.matches(1, parseSearch('beluga'), 0, false)], [31]);
  await store.close();
  removeStores(path);
});

test('a copy that replayed postings from before the chunks, deletions among them, agrees with one indexed anew, through the change sets that follow', async () => {
  const [writerPath, copyPath] = [tempStorePath(), tempStorePath()];
  const writer = testStore(writerPath);
  const copy = testStore(copyPath);
  const ids = Array.from({ length: 3 * CHUNK_SPACING }, (_, index) => index + 1);
  await writer.write(() => {
    for (const id of ids) writer.saveMessage(message(id, 'orca'));
  });
  await writer.write(() => writer.removeMessage(message(5, 'orca')));
  // The writer opened as format 7: indexed anew. The copy replays format 6's rows and deletion.
  writer.rebuildSearchIndex();
  const posting = (id: number, put: boolean): Change => (put ? ['searchPostings', [1, 'orca', id], changeCodec.pack(true)] : ['searchPostings', [1, 'orca', id]]);
  // A log of format 6 carried the messages' rows beside their postings; a replay indexes the
  // messages too, which the old rows then find done.
  const messageRow = (id: number): Change => ['messages', id, changeCodec.pack(message(id, 'orca'))];
  await copy.applyChanges([['searchWords', [1, 'orca'], changeCodec.pack(true)], ...ids.flatMap((id) => [messageRow(id), posting(id, true)])], { reindex: true, form: 'change' });
  await copy.applyChanges([['messages', 5], posting(5, false)], { reindex: true, form: 'change' });
  assert.equal([...copy.search.matches(1, parseSearch('orca'), 0, false)], [...writer.search.matches(1, parseSearch('orca'), 0, false)]);
  // Then the writer's own change sets, which carry no postings (the copy indexes the messages they
  // put and remove): a new message; one deleted, the first of a chunk among them.
  const chunkStart = ids.find((id, index) => index > 0 && startsChunk(id))!;
  for (const fn of [() => writer.saveMessage(message(ids.length + 1, 'orca')), () => writer.removeMessage(message(chunkStart, 'orca')), () => writer.removeMessage(message(ids.length - 1, 'orca'))]) {
    const { changes } = await writer.recordedWrite(fn);
    assert.ok(changes.every(([table]) => table !== 'searchChunks'), 'no postings in a change set');
    await copy.applyChanges(changes, { reindex: true });
  }
  const expected = [...ids, ids.length + 1].filter((id) => ![5, chunkStart, ids.length - 1].includes(id));
  for (const store of [writer, copy]) assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], expected);
  assert.is(realmDigest(copy, 1), realmDigest(writer, 1));
  await Promise.all([writer.close(), copy.close()]);
  removeStores(writerPath, copyPath);
});

test("one change set with a message put twice, or put and removed (a log message coalesces writes), is indexed as its last state", async () => {
  const path = tempStorePath();
  const copy = testStore(path);
  const put = (id: number, word: string): Change => ['messages', id, changeCodec.pack(message(id, word))];
  await copy.applyChanges([put(7, 'walrus'), put(7, 'narwhal'), put(8, 'orca'), ['messages', 8]], { reindex: true, form: 'change' });
  const found = (word: string) => [...copy.search.matches(1, parseSearch(word), 0, false)];
  assert.equal([found('walrus'), found('narwhal'), found('orca')], [[], [7], []]);
  await copy.close();
  removeStores(path);
});

test.run();
