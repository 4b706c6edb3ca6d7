// The full-text index's storage: posting lists in chunks (src/store/postingLists.ts) checked
// against a plain model of each term's messages under appends, edits' older IDs, removals and
// rolled-back writes, read both ways from anywhere, and laid out as the same postings put at once
// would be. Six hundred random steps, seconds of work: here rather than in the default suite
// (test/searchIndex.test.ts holds the format migrations).
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHUNK_SPACING, PostingLists, startsChunk } from '../../src/store/postingLists.js';
import { random, removeStores, tempStorePath } from '../helpers/stores.js';

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

test.run();
