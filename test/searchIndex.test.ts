// The full-text index's storage: posting lists in chunks (src/store/postingLists.ts) checked
// against a plain model of each term's messages under appends, edits' older IDs, removals and
// rolled-back writes, read both ways from anywhere, and laid out as the same postings put at once
// would be; and data from before the chunks (format 6, a row per posting): a data directory
// indexed anew at open, a change set applied to the chunks, a copy that replayed such change sets
// agreeing with one indexed anew.
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSearch } from '../src/messages/search.js';
import { changeCodec, type Change } from '../src/store/changes.js';
import { CHUNK_SPACING, PostingLists, startsChunk } from '../src/store/postingLists.js';
import { realmDigest } from '../src/store/realmData.js';
import { Store } from '../src/store/store.js';
import { message, random, removeStores, tempStorePath } from './helpers/stores.js';

test('posting lists match a plain model through appends, older IDs, removals and rolled-back writes, read both ways from anywhere, in the chunks the same postings put at once make', async () => {
  const path = tempStorePath();
  let env = open({ path, maxDbs: 4 });
  const chunksOf = (name = 'searchChunks') => env.openDB<Buffer, [number, string, number]>({ name, encoding: 'binary' });
  let lists = new PostingLists(chunksOf());
  const next = random(11);
  const terms = ['walrus', 'narwhal', 'orca'];
  // `${realmId}:${term}` → the IDs holding it
  const model = new Map<string, Set<number>>();
  const idsOf = (realmId: number, term: string) => model.get(`${realmId}:${term}`) ?? new Set<number>();
  let newest = 0;
  const check = (realmId: number, term: string) => {
    const ids = [...idsOf(realmId, term)].sort((a, b) => a - b);
    for (const from of [0, ids[0] ?? 1, ids[Math.floor(next() * ids.length)] ?? 1, Math.floor(next() * (newest + 2)), newest + 1]) {
      assert.equal([...lists.holding(realmId, term, from, false)], ids.filter((id) => id >= from), `${term} of realm ${realmId} from ${from}`);
      assert.equal([...lists.holding(realmId, term, from, true)], ids.filter((id) => id <= from).reverse(), `${term} of realm ${realmId} back from ${from}`);
    }
  };
  const change = (realmId: number, term: string, ids: number[], adding: boolean) => {
    if (adding) lists.add(realmId, term, ids);
    else lists.remove(realmId, term, ids);
    const kept = new Set(idsOf(realmId, term));
    for (const id of ids) if (adding) kept.add(id); else kept.delete(id);
    return kept;
  };
  for (let step = 0; step < 600; step++) {
    const realmId = next() < 0.8 ? 1 : 2;
    const term = terms[Math.floor(next() * terms.length)]!;
    const roll = next();
    let ids: number[];
    let adding = true;
    if (roll < 0.55) {
      // New messages: a batch's IDs after every other.
      ids = Array.from({ length: 1 + Math.floor(next() * 70) }, () => (newest += 1 + Math.floor(next() * 3)));
    } else if (roll < 0.75) {
      // Edits: older IDs the term did not hold (and one it did: held once).
      const held = [...idsOf(realmId, term)];
      ids = [...new Set([...Array.from({ length: 1 + Math.floor(next() * 5) }, () => 1 + Math.floor(next() * newest)), ...held.slice(0, 1)])].sort((a, b) => a - b);
    } else {
      // Removals: held IDs, with one never held.
      adding = false;
      const held = [...idsOf(realmId, term)].sort((a, b) => a - b);
      const start = Math.floor(next() * held.length);
      ids = [...new Set([...held.slice(start, start + 1 + Math.floor(next() * 40)), 1 + Math.floor(next() * (newest + 1))])].sort((a, b) => a - b);
    }
    const failing = next() < 0.1;
    env.transactionSync(() => {
      try {
        env.transactionSync(() => {
          const kept = change(realmId, term, ids, adding);
          if (failing) throw new Error('refused');
          model.set(`${realmId}:${term}`, kept);
        });
      } catch {
        // LMDB rolled the child transaction back; what memory remembers of it goes.
        lists.forget();
      }
    });
    check(realmId, term);
  }
  // A last chunk emptied, then appended to; the whole list emptied, then started again.
  const inWrite = (fn: () => void) => env.transactionSync(fn);
  const first = Array.from({ length: 3 * CHUNK_SPACING }, (_, index) => newest + 1 + index);
  newest += first.length;
  const lastStart = Math.max(...first.map((id, index) => (index > 0 && startsChunk(id) ? index : -1)));
  assert.ok(lastStart > 0, 'the IDs make more than one chunk');
  inWrite(() => model.set('3:orca', change(3, 'orca', first, true)));
  inWrite(() => model.set('3:orca', change(3, 'orca', first.slice(lastStart), false)));
  inWrite(() => model.set('3:orca', change(3, 'orca', [newest + 1], true)));
  check(3, 'orca');
  inWrite(() => model.set('3:orca', change(3, 'orca', [...idsOf(3, 'orca')].sort((a, b) => a - b), false)));
  inWrite(() => model.set('3:orca', change(3, 'orca', [newest + 2], true)));
  check(3, 'orca');
  newest += 2;
  const total = [...model.values()].reduce((sum, ids) => sum + ids.size, 0);
  assert.ok(total > 8 * CHUNK_SPACING, `${total} postings span many chunks`);
  assert.ok(chunksOf().getKeysCount() < total / 20, `${chunksOf().getKeysCount()} chunks for ${total} postings`);
  // The same postings put at once, term by term, make the same rows.
  const atOnce = new PostingLists(chunksOf('atOnce'));
  inWrite(() => {
    for (const [name, ids] of model) {
      const [realmId, term] = name.split(':');
      if (ids.size > 0) atOnce.add(Number(realmId), term!, [...ids].sort((a, b) => a - b));
    }
  });
  const rows = (name: string) => [...chunksOf(name).getRange()].map(({ key, value }) => [key, [...value]]);
  assert.equal(rows('searchChunks'), rows('atOnce'));
  await env.close();
  // Reopened: the same lists, and appends go on from where they were.
  env = open({ path, maxDbs: 4 });
  lists = new PostingLists(chunksOf());
  for (const realmId of [1, 2]) for (const term of terms) check(realmId, term);
  inWrite(() => model.set('1:orca', change(1, 'orca', [newest + 1, newest + 2], true)));
  newest += 2;
  check(1, 'orca');
  await env.close();
  removeStores(path);
});

test('a data directory from before the chunks (a posting a row) is indexed anew at open; the old rows go', async () => {
  const path = tempStorePath();
  const store = new Store(path);
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

  const reopened = new Store(path);
  assert.is(reopened.migratedFrom, 6);
  assert.equal([...reopened.search.matches(1, parseSearch('walrus'), 0, false)], [20, 21]);
  assert.equal([...reopened.search.matches(1, parseSearch('narwhal'), 0, false)], [21]);
  assert.is(reopened.env.openDB({ name: 'searchPostings' }).getKeysCount(), 0);
  await reopened.close();
  removeStores(path);
});

test('a change set from before the chunks (a snapshot or log naming searchPostings) is applied to them', async () => {
  const path = tempStorePath();
  const store = new Store(path);
  const posting = (id: number, word: string, put: boolean): Change => (put ? ['searchPostings', [1, word, id], changeCodec.pack(true)] : ['searchPostings', [1, word, id]]);
  await store.applyChanges([posting(30, 'orca', true), posting(31, 'orca', true), posting(31, 'beluga', true)]);
  assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], [30, 31]);
  await store.applyChanges([posting(30, 'orca', false)]);
  assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], [31]);
  assert.equal([...store.search.matches(1, parseSearch('beluga'), 0, false)], [31]);
  await store.close();
  removeStores(path);
});

test('a copy that replayed postings from before the chunks, deletions among them, agrees with one indexed anew, through the change sets that follow', async () => {
  const [writerPath, copyPath] = [tempStorePath(), tempStorePath()];
  const writer = new Store(writerPath);
  const copy = new Store(copyPath);
  const ids = Array.from({ length: 3 * CHUNK_SPACING }, (_, index) => index + 1);
  await writer.write(() => {
    for (const id of ids) writer.saveMessage(message(id, 'orca'));
  });
  await writer.write(() => writer.removeMessage(message(5, 'orca')));
  // The writer opened as format 7: indexed anew. The copy replays format 6's rows and deletion.
  writer.rebuildSearchIndex();
  const posting = (id: number, put: boolean): Change => (put ? ['searchPostings', [1, 'orca', id], changeCodec.pack(true)] : ['searchPostings', [1, 'orca', id]]);
  await copy.applyChanges([['searchWords', [1, 'orca'], changeCodec.pack(true)], ...ids.map((id) => posting(id, true))]);
  await copy.applyChanges([posting(5, false)]);
  assert.is(realmDigest(copy, 1), realmDigest(writer, 1));
  // Then the writer's own change sets: a new message; one deleted, the first of a chunk among them.
  const chunkStart = ids.find((id, index) => index > 0 && startsChunk(id))!;
  for (const fn of [() => writer.saveMessage(message(ids.length + 1, 'orca')), () => writer.removeMessage(message(chunkStart, 'orca')), () => writer.removeMessage(message(ids.length - 1, 'orca'))]) {
    await copy.applyChanges((await writer.recordedWrite(fn)).changes);
  }
  const expected = [...ids, ids.length + 1].filter((id) => ![5, chunkStart, ids.length - 1].includes(id));
  for (const store of [writer, copy]) assert.equal([...store.search.matches(1, parseSearch('orca'), 0, false)], expected);
  assert.is(realmDigest(copy, 1), realmDigest(writer, 1));
  await Promise.all([writer.close(), copy.close()]);
  removeStores(writerPath, copyPath);
});

test.run();
