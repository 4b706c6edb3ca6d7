// The store's message indexes: the chunked per-user message rows (src/store/userMessages.ts; their
// check against a plain map of rows under random sets, removals and batch updates across chunk
// boundaries takes seconds and is in the fault tier, test/faults/userMessages.fault.ts), with new
// messages' rows kept in their conversations' logs (src/store/conversationLog.ts)
// and flag marks in the users' flag journals (src/store/flagJournal.ts); and the one-time migrations
// of data directories written before the chunked rows and the topic index.
import { open, type Key } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RolledBackWithBatch, Store, STORE_FORMAT, StoreFormatError } from '../src/store/store.js';
import { LOG_RECORDS } from '../src/store/conversationLog.js';
import { FOLD_RECORDS, FOLD_ROWS } from '../src/store/flagJournal.js';
import { MAX_ENTRIES, RowChanges } from '../src/store/userMessages.js';
import { parseSearch } from '../src/messages/search.js';
import { message, random, refused, removeStores, replicate, tempStorePath, testStore } from './helpers/stores.js';

test("flag marks go to the user's journal: read back after restarts, folded by other writes and past its rows bound, compacted past its records bound, taken back with a failed write", async () => {
  const path = tempStorePath();
  let store = testStore(path);
  const next = random(11);
  const journalRecords = () => store.tables.get('userFlagOps')!.getKeysCount();
  // userId → messageId → [flags, recipientId]
  const model = new Map<number, Map<number, [number, number]>>([[1, new Map()], [2, new Map()]]);
  let lastId = 0;
  const appendRows = (count: number) =>
    store.write(() => {
      for (let k = 0; k < count; k++) {
        const id = ++lastId;
        const recipientId = 10 + (id % 3);
        for (const userId of [1, 2]) {
          if (userId === 2 && id % 5 === 0) continue;
          store.userMessages.appendMessage(recipientId, id, [userId], [0]);
          model.get(userId)!.set(id, [0, recipientId]);
        }
      }
    });
  const expectedRows = (userId: number) => [...model.get(userId)!].sort((a, b) => a[0] - b[0]).map(([id, [flags, recipientId]]) => [id, flags, recipientId]);
  /** Reads every row back from LMDB (a new store: nothing in memory), point reads and conversation
   * ranges before the merged rows. */
  const checkAfterRestart = async (when: string) => {
    await store.close();
    store = testStore(path);
    for (const userId of [1, 2]) {
      for (const [id, [flags, recipientId]] of model.get(userId)!) if (id % 7 === 0) assert.is(store.userMessages.get(userId, recipientId, id), flags, `${when}: user ${userId}'s flags on ${id}, read alone`);
      for (const recipientId of [10, 11, 12, 13]) {
        const expected = expectedRows(userId).filter((row) => row[2] === recipientId).map(([id, flags]) => [id, flags]);
        assert.equal([...store.userMessages.conversationRange(userId, recipientId, 0)], expected, `${when}: user ${userId}, conversation ${recipientId}`);
        assert.equal([...store.userMessages.conversationRange(userId, recipientId, Number.MAX_SAFE_INTEGER, true)], expected.reverse(), `${when}: user ${userId}, conversation ${recipientId}, newest first`);
      }
      assert.equal([...store.userMessages.range(userId, 0)], expectedRows(userId), `${when}: user ${userId}'s rows merged`);
    }
  };
  await appendRows(3000);
  const mark = (userId: number, ids: number[], add: boolean, bit: number) => {
    store.userMessages.mark(userId, ids, add, bit);
    for (const id of ids) {
      const row = model.get(userId)!.get(id)!;
      row[0] = add ? row[0] | bit : row[0] & ~bit;
    }
  };
  const someRows = (userId: number, count: number) => {
    const ids = [...model.get(userId)!.keys()];
    const from = Math.floor(next() * (ids.length - count));
    return ids.slice(from, from + count).filter(() => next() < 0.7);
  };
  for (let round = 0; round < 12; round++) {
    await Promise.all(
      [1, 2].map((userId) =>
        store.write(() => {
          for (let k = 0; k < 3; k++) mark(userId, someRows(userId, 400), next() < 0.6, [1, 2, 32][Math.floor(next() * 3)]!);
        }),
      ),
    );
    assert.equal([...store.userMessages.range(1, 0)], expectedRows(1), `round ${round}: in memory`);
  }
  assert.ok(journalRecords() > 0, 'marks are kept as journal records');
  await checkAfterRestart('marks in the journal');

  // New rows leave the journal as it is: rows filling chunks and starting new ones, a new
  // conversation's first row. So do marks given out of order and repeated.
  const records = journalRecords();
  await appendRows(400);
  await store.write(() => {
    const id = ++lastId;
    store.userMessages.appendMessage(13, id, [1], [0]);
    model.get(1)!.set(id, [0, 13]);
  });
  const [a, b] = someRows(1, 50);
  await store.write(() => mark(1, [b!, a!, b!], true, 2));
  assert.is(journalRecords(), records + 1, 'new rows folded no journal');
  await checkAfterRestart('after new rows');

  // A failed write's marks are taken back, in memory and in LMDB; the next write's record follows
  // the last committed one (it does not take the failed one's place over a committed one).
  const committed = expectedRows(1);
  await refused(store.write(() => {
    store.userMessages.mark(1, someRows(1, 300), true, 4);
    throw new Error('refused');
  }));
  assert.equal([...store.userMessages.range(1, 0)], committed, 'a failed mark is taken back in memory');
  await store.write(() => mark(1, someRows(1, 100), true, 2));
  // So is a failed write's fold: the journal stays as it was, to be folded by a later write.
  const unfolded = journalRecords();
  await refused(store.write(() => {
    store.userMessages.put(1, 10, [...model.get(1)!.keys()].find((id) => model.get(1)!.get(id)![1] === 10)!, 64);
    throw new Error('refused');
  }));
  assert.is(journalRecords(), unfolded, "a failed write's fold is rolled back");
  assert.equal([...store.userMessages.range(1, 0)], expectedRows(1), 'and so is what it changed in memory');
  await checkAfterRestart('after a failed mark and a failed fold');

  // Any other change to a user's rows folds their journal into the chunks first.
  const [firstRow] = model.get(2)!;
  await store.write(() => mark(2, [firstRow![0]], true, 1));
  const beforeFold = journalRecords();
  await store.write(() => {
    // Flags without the bit the journal sets on the row.
    store.userMessages.put(2, firstRow![1][1], firstRow![0], 8);
    model.get(2)!.set(firstRow![0], [8, firstRow![1][1]]);
    const removed = [...model.get(2)!.keys()].filter((id) => id % 11 === 0);
    for (const recipientId of [10, 11, 12]) store.userMessages.take(2, recipientId, removed);
    for (const id of removed) model.get(2)!.delete(id);
  });
  assert.ok(journalRecords() < beforeFold, "another change to user 2's rows folded their journal");
  await checkAfterRestart('after a fold by other changes');

  // A journal past its bounds is folded by the write that grows it.
  await appendRows(FOLD_ROWS + 10);
  await store.write(() => mark(1, [...model.get(1)!.keys()].slice(0, FOLD_ROWS), true, 1));
  assert.ok(journalRecords() > 0, 'a mark within the bounds stays in the journal');
  await store.write(() => mark(1, [...model.get(1)!.keys()].slice(-20), true, 1));
  await store.write(() => mark(2, [...model.get(2)!.keys()].slice(0, 10), false, 1));
  await store.write(() => mark(2, [...model.get(2)!.keys()].slice(0, 10), true, 1));
  assert.is(store.tables.get('userFlagOps')!.getKeysCount({ start: [1], end: [2] }), 0, "user 1's journal past its bound was folded");
  const user2Records = () => store.tables.get('userFlagOps')!.getKeysCount({ start: [2], end: [3] });
  // Marks setting and clearing the same few rows, past the records bound: the journal is compacted
  // into one summary record instead (a failed write's compaction is taken back first).
  const newest = [...model.get(2)!].filter(([, [, recipientId]]) => recipientId === 10).slice(-5).map(([id]) => id);
  for (let k = 0; user2Records() < FOLD_RECORDS; k++) await store.write(() => mark(2, [newest[k % newest.length]!], k % 2 === 0, 2));
  await refused(store.write(() => {
    store.userMessages.mark(2, [newest[0]!], true, 32);
    throw new Error('refused');
  }));
  assert.is(user2Records(), FOLD_RECORDS, "a failed write's compaction is rolled back");
  await store.write(() => mark(2, [newest[0]!], true, 32));
  assert.is(user2Records(), 1, "user 2's journal past its records bound was compacted");
  await checkAfterRestart('after a compaction');
  await store.write(() => mark(2, newest.slice(1, 3), false, 32));
  await store.write(() => mark(2, newest.slice(2), true, 1));
  await checkAfterRestart('with records after a summary');
  // A summary is folded as records are.
  await store.write(() => {
    store.userMessages.put(2, 11, [...model.get(2)!].find(([, [, recipientId]]) => recipientId === 11)![0], 0);
    model.get(2)!.get([...model.get(2)!].find(([, [, recipientId]]) => recipientId === 11)![0])![0] = 0;
  });
  assert.is(user2Records(), 0, "user 2's summary was folded by another change to their rows");
  await checkAfterRestart('after a summary was folded');
  // A mark past the rows bound in a batch whose earlier write appended to the user's rows: the fold
  // writes the conversation's log first, then the journal's flags over it.
  const appended = ++lastId;
  await Promise.all([
    store.write(() => {
      store.userMessages.appendMessage(10, appended, [1], [0]);
      model.get(1)!.set(appended, [0, 10]);
    }),
    store.write(() => mark(1, [...model.get(1)!.keys()].filter((id) => id !== appended).slice(-FOLD_ROWS - 1), true, 32)),
  ]);
  assert.is(store.tables.get('userFlagOps')!.getKeysCount({ start: [1], end: [2] }), 0, "user 1's journal past its rows bound was folded");
  await checkAfterRestart('after folds past the bounds');
  await store.close();
  removeStores(path);
});

test("a message's rows go to its conversation's log: read back after restarts, folded past its bound and by other changes, taken back with a failed write, copied by change sets", async () => {
  const [path, copyPath] = [tempStorePath(), tempStorePath()];
  let store = testStore(path);
  let copy = testStore(copyPath);
  const next = random(23);
  const logRecords = (recipientId: number) => store.tables.get('userMessageLog')!.getKeysCount({ start: [recipientId], end: [recipientId + 1] });
  // userId → messageId → [flags, recipientId]; users 1-6 in conversation 10, 4-8 in 11
  const model = new Map<number, Map<number, [number, number]>>(Array.from({ length: 8 }, (_, index) => [index + 1, new Map()]));
  const members = new Map([[10, [1, 2, 3, 4, 5, 6]], [11, [4, 5, 6, 7, 8]]]);
  let lastId = 0;
  const write = (fn: () => void) => replicate(store, copy, fn);
  /** Sends `count` messages to the conversation, each with its members' rows (some not yet joined). */
  const send = (recipientId: number, count: number, joined = members.get(recipientId)!) =>
    write(() => {
      for (let k = 0; k < count; k++) {
        const id = ++lastId;
        const flags = joined.map(() => Math.floor(next() * 4));
        store.userMessages.appendMessage(recipientId, id, joined, flags);
        joined.forEach((userId, index) => model.get(userId)!.set(id, [flags[index]!, recipientId]));
      }
    });
  const check = (when: string) => {
    for (const reading of [store, copy]) {
      for (const [userId, rows] of model) {
        const expected = [...rows].sort((a, b) => a[0] - b[0]);
        assert.equal([...reading.userMessages.range(userId, 0)], expected.map(([id, [flags, recipientId]]) => [id, flags, recipientId]), `${when}: user ${userId}'s rows`);
        assert.is(reading.userMessages.newest(userId), expected.at(-1)?.[0] ?? -1, `${when}: user ${userId}'s newest row`);
        for (const recipientId of [10, 11]) {
          const mine = expected.filter(([, [, r]]) => r === recipientId).map(([id, [flags]]): [number, number] => [id, flags]);
          assert.equal([...reading.userMessages.conversationRange(userId, recipientId, 0)], mine, `${when}: user ${userId} in ${recipientId}`);
          assert.equal([...reading.userMessages.conversationRange(userId, recipientId, Number.MAX_SAFE_INTEGER, true)], [...mine].reverse(), `${when}: user ${userId} in ${recipientId}, newest first`);
          for (const [id, flags] of mine.slice(-3)) assert.is(reading.userMessages.get(userId, recipientId, id), flags, `${when}: user ${userId}'s row ${id}`);
        }
      }
    }
  };
  const restart = async (when: string) => {
    await Promise.all([store.close(), copy.close()]);
    [store, copy] = [testStore(path), testStore(copyPath)];
    check(when);
  };
  // The first message gives each member a chunk; the next ones go to the log.
  await send(10, 1, [1, 2, 3]);
  await send(10, 20, [1, 2, 3]);
  await send(11, 5);
  assert.is(logRecords(10), 20, 'one record a message');
  check('rows in the log');
  await restart('rows in the log, after a restart');
  // Members joining: their first rows are written into the chunks, which folds the log first.
  await send(10, 3);
  assert.is(logRecords(10), 3, "the log was folded by the new members' first rows (the others' went to it)");
  // A failed write's appends are taken back, the log's record with them.
  await refused(store.write(() => {
    store.userMessages.appendMessage(10, lastId + 1, members.get(10)!, [1, 1, 1, 1, 1, 1]);
    throw new Error('refused');
  }));
  assert.is(logRecords(10), 3, "a failed write's record is rolled back");
  check('after a failed append');
  // Past its bound, the log is folded before it grows; rows fill chunks and start new ones.
  await send(10, MAX_ENTRIES * 2);
  assert.ok(logRecords(10) <= LOG_RECORDS, 'the log stays within its bound');
  check('after folds past the bound');
  // Marks on rows in the log, then a change that folds the user's journal: the log first.
  const inLog = [...model.get(4)!].filter(([, [, r]]) => r === 10).slice(-5).map(([id]) => id);
  await write(() => store.userMessages.mark(4, inLog, true, 32));
  for (const id of inLog) model.get(4)!.get(id)![0] |= 32;
  await restart('marks on rows in the log');
  const taken = inLog[1]!;
  await write(() => {
    assert.is(store.userMessages.take(4, 10, [taken]).get(taken), model.get(4)!.get(taken)![0], 'take returns a logged row\'s flags');
  });
  model.get(4)!.delete(taken);
  assert.is(logRecords(10), 0, 'a removal folded the log');
  await send(11, 3);
  // A message's rows given in two parts, with an older message's between them (never the send
  // path's case): the older one's go into the chunks, the record keeps both parts.
  const [earlier, later] = [lastId + 1, lastId + 2];
  lastId = later;
  await write(() => {
    store.userMessages.appendMessage(11, later, [4], [1]);
    store.userMessages.appendMessage(11, earlier, [5], [2]);
    store.userMessages.appendMessage(11, later, [6], [3]);
  });
  model.get(4)!.set(later, [1, 11]);
  model.get(5)!.set(earlier, [2, 11]);
  model.get(6)!.set(later, [3, 11]);
  await restart('after the log was folded by a removal, and rows given out of order');
  await Promise.all([store.close(), copy.close()]);
  removeStores(path, copyPath);
});

test('a fold writes only the chunks whose flags it changes: marks that undo each other write none', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  await store.write(() => {
    for (let id = 1; id <= MAX_ENTRIES * 6; id++) store.userMessages.appendMessage(10, id, [1], [0]);
  });
  // A row set as it is: the conversation's log is folded into the chunks, none of which changes.
  await store.write(() => store.userMessages.put(1, 10, 1, 0));
  const ids = Array.from({ length: MAX_ENTRIES * 6 }, (_, index) => index + 1);
  await store.write(() => store.userMessages.mark(1, ids, true, 2));
  await store.write(() => store.userMessages.mark(1, ids, false, 2));
  await store.write(() => store.userMessages.mark(1, [5, MAX_ENTRIES * 3], true, 1));
  // Setting a row folds the journal first: only the two chunks of the rows marked read change.
  const { changes } = await store.recordedWrite(() => store.userMessages.put(1, 10, 7, 1 | 4));
  const written = new Set(changes.filter(([table, , value]) => value !== undefined && table !== 'userFlagOps').map(([table, key]) => JSON.stringify([table, key])));
  assert.equal([...written].sort(), ['["userMessageRows",[1,10,1]]', `["userMessageRows",[1,10,${MAX_ENTRIES * 2 + 1}]]`], 'the chunks written');
  assert.is(store.tables.get('userFlagOps')!.getKeysCount(), 0, 'the journal was folded');
  await store.close();
  const reopened = testStore(path);
  const flagsOf = new Map([...reopened.userMessages.conversationRange(1, 10, 0)]);
  assert.equal([flagsOf.get(5), flagsOf.get(7), flagsOf.get(MAX_ENTRIES * 3), flagsOf.get(8)], [1, 5, 1, 0]);
  await reopened.close();
  removeStores(path);
});

test('a copy kept by change sets reads flag marks and folds as the writer does: each change set drops what it held of them', async () => {
  const [writerPath, copyPath] = [tempStorePath(), tempStorePath()];
  const writer = testStore(writerPath);
  const copy = testStore(copyPath);
  await replicate(writer, copy, () => {
    for (let id = 1; id <= 600; id++) writer.userMessages.appendMessage(10 + (id % 2), id, [1], [0]);
  });
  const rowsOf = (store: Store) => [...store.userMessages.range(1, 0)];
  // The copy reads the user's rows and journal (empty) before any mark reaches it.
  assert.is(copy.userMessages.get(1, 10, 100), 0);
  assert.equal(rowsOf(copy), rowsOf(writer));
  for (let round = 0; round < FOLD_RECORDS + 2; round++) {
    await replicate(writer, copy, () => writer.userMessages.mark(1, [100 + round * 2, 300 + round], round % 3 !== 0, round % 2 === 0 ? 1 : 2));
    assert.is(copy.userMessages.get(1, 10, 100 + round * 2), writer.userMessages.get(1, 10, 100 + round * 2), `round ${round}: a row read alone`);
    assert.equal(rowsOf(copy), rowsOf(writer), `round ${round}: the rows`);
  }
  const journal = (store: Store) => [...store.tables.get('userFlagOps')!.getKeys()];
  assert.ok(journal(writer).length < FOLD_RECORDS, 'the writer compacted its journal past its bound');
  assert.equal(journal(copy), journal(writer), 'and the copy holds the same records');
  await Promise.all([writer.close(), copy.close()]);
  removeStores(writerPath, copyPath);
});

test('a write rolled back leaves the rows and topics in memory as committed; other users keep theirs', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  await store.write(() => {
    for (let id = 1; id <= 10; id++) {
      store.userMessages.appendMessage(10, id, [1], [0]);
      store.userMessages.appendMessage(10, id, [2], [0]);
      store.indexInChannel(5, id, 'before');
    }
  });
  const rowsOf = (userId: number) => [...store.userMessages.range(userId, 0)];
  const topicOf = (messageId: number) => {
    const table = store.channelTopics.table(5);
    const at = table.indexOf(messageId);
    return at < 0 ? undefined : table.topicAt(at);
  };
  const committed = rowsOf(1);
  assert.is(topicOf(3), 'before');
  const other = store.userMessages.rows(2);
  await refused(store.write(() => {
    store.userMessages.apply(1, 10, RowChanges.of([[3, 1], [4, 1]]));
    store.userMessages.appendMessage(10, 11, [1], [0]);
    store.unindexInChannel(5, 3, 'before');
    store.indexInChannel(5, 3, 'after');
    store.indexInChannel(5, 11, 'after');
    assert.equal(rowsOf(1).slice(2, 4), [[3, 1, 10], [4, 1, 10]], 'the write sees its own changes');
    assert.is(topicOf(11), 'after');
    throw new Error('refused');
  }));
  assert.equal(rowsOf(1), committed);
  assert.is(topicOf(3), 'before');
  assert.is(topicOf(11), undefined);
  assert.is(store.userMessages.rows(2), other, "a user the write did not touch keeps the rows in memory");
  await store.close();
  removeStores(path);
});

test("a write whose function returns a put's promise commits it (presence, a cluster's log position)", async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const snapshot = { lastUpdateId: 7, users: [] };
  await store.savePresence(3, snapshot);
  await store.close();
  const reopened = testStore(path);
  assert.equal(reopened.savedPresence(3), snapshot);
  await reopened.close();
  removeStores(path);
});

test("appending new messages fills a conversation's last chunk, then starts the next", async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const appended: [number, number][] = [];
  await store.write(() => {
    for (let id = 1; id <= MAX_ENTRIES * 2 + 5; id++) {
      store.userMessages.appendMessage(10, id * 2, [3], [id % 4]);
      appended.push([id * 2, id % 4]);
    }
    // An ID below the last one (not a new message) still lands in its place.
    store.userMessages.appendMessage(10, 3, [3], [9]);
    appended.splice(1, 0, [3, 9]);
  });
  assert.equal([...store.userMessages.conversationRange(3, 10, 0)], appended);
  assert.is(store.userMessages.get(3, 10, MAX_ENTRIES * 2), MAX_ENTRIES % 4);
  await store.close();
  removeStores(path);
});

test('a data directory with one row per user and message is migrated to conversation chunks at open', async () => {
  const path = tempStorePath();
  const env = open({ path, maxDbs: 64 });
  const old = env.openDB<number, [number, number]>({ name: 'userMessages' });
  const messages = env.openDB<Record<string, unknown>, number>({ name: 'messages' });
  const recipientOf = (id: number) => (id % 2 === 0 ? 20 : 21);
  await old.transaction(() => {
    for (let id = 1; id <= 1500; id++) {
      messages.put(id, { id, realmId: 1, senderId: 4, recipientId: recipientOf(id), type: 'stream', channelId: recipientOf(id), topic: 't', participants: [], content: 'x', renderedContent: '<p>x</p>', timestamp: 0, client: 'test' });
      old.put([4, id], id % 3 === 0 ? 1 : 0);
    }
    old.put([5, 700], 2 | 1024);
  });
  await env.close();

  const store = testStore(path);
  assert.is([...store.userMessages.range(4, 0)].length, 1500);
  assert.is([...store.userMessages.conversationRange(4, 20, 0)].length, 750);
  assert.is(store.userMessages.get(4, recipientOf(999), 999), 1);
  assert.is(store.userMessages.get(4, recipientOf(1000), 1000), 0);
  assert.equal([...store.userMessages.range(5, 0)], [[700, 2 | 1024, 20]]);
  await store.close();

  const reopened = testStore(path);
  assert.is([...reopened.userMessages.range(4, 0)].length, 1500, 'migrated once; nothing lost on the next open');
  await reopened.close();
  removeStores(path);
});

test('a rolled-back write leaves nothing of its own behind in memory (headers, chunk directory)', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const message = { id: 7, realmId: 1, senderId: 2, recipientId: 3, type: 'stream' as const, channelId: 4, topic: 'committed', participants: [], content: 'x', renderedContent: '<p>x</p>', timestamp: 0, client: 'test' };
  await store.write(() => store.saveMessage(message));
  assert.is(store.messageHeader(7)?.topic, 'committed');
  let failed = false;
  await store
    .write(() => {
      store.saveMessage({ ...message, topic: 'rolled back' }, message);
      assert.is(store.messageHeader(7)?.topic, 'rolled back', 'the write sees its own change');
      throw new Error('abort');
    })
    .catch(() => (failed = true));
  assert.ok(failed);
  assert.is(store.messageHeader(7)?.topic, 'committed');
  // Rows written by a failed write are gone, and the chunk directory in memory agrees.
  await store.write(() => store.userMessages.put(1, 3, 7, 0));
  await store
    .write(() => {
      for (let id = 8; id < 8 + MAX_ENTRIES * 2; id++) store.userMessages.put(1, 3, id, 1);
      throw new Error('abort');
    })
    .catch(() => undefined);
  assert.equal([...store.userMessages.conversationRange(1, 3, 0)], [[7, 0]]);
  await store.write(() => store.userMessages.put(1, 3, 9, 2));
  assert.equal([...store.userMessages.conversationRange(1, 3, 0)], [[7, 0], [9, 2]]);
  await store.close();
  removeStores(path);
});

test('writes of one batch: rows appended by a failing write are taken back, the others kept and seen by later writes', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  await store.write(() => store.userMessages.appendMessage(3, 1, [1], [0]));
  // Started in the same turn, these share a transaction (group commit).
  const outcomes = await Promise.allSettled([
    store.write(() => {
      for (const userId of [1, 2]) store.userMessages.appendMessage(3, 10, [userId], [1]);
    }),
    store.write(() => {
      for (const userId of [1, 2]) store.userMessages.appendMessage(3, 11, [userId], [2]);
      store.search.add(message(11, 'zebrafish'));
      throw new Error('refused');
    }),
    store.write(() => {
      for (const userId of [1, 2]) store.userMessages.appendMessage(3, 12, [userId], [3]);
      // A write reading the rows sees those appended before it in the batch.
      return [...store.userMessages.conversationRange(1, 3, 0)];
    }),
    store.write(() => store.search.add(message(13, 'zebrafish'))),
  ]);
  assert.equal(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  );
  assert.equal((outcomes[2] as PromiseFulfilledResult<unknown>).value, [[1, 0], [10, 1], [12, 3]]);
  assert.equal([...store.userMessages.conversationRange(1, 3, 0)], [[1, 0], [10, 1], [12, 3]]);
  assert.equal([...store.userMessages.conversationRange(2, 3, 0)], [[10, 1], [12, 3]]);
  // The rolled-back write's new word is stored by the later one: a prefix finds it.
  assert.equal([...store.search.matches(1, parseSearch('zebr'), 0, false)], [13]);
  await store.close();
  // Reopened: what was committed is on disk.
  const reopened = testStore(path);
  assert.equal([...reopened.userMessages.conversationRange(2, 3, 0)], [[10, 1], [12, 3]]);
  await reopened.close();
  removeStores(path);
});

test('writes that check first share their batch\'s transaction: refused before changing anything, alone; failing after a change, the batch is rolled back whole and each of its writes refused', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const append = (id: number, userId = 1) => () => store.userMessages.appendMessage(3, id, [userId], [0]);
  const checked = { checksFirst: true };
  await store.write(append(5));
  // User 1's rows held in memory (an active user's table).
  const rowsOf1 = () => [...store.userMessages.range(1, 0)].map(([id, flags]) => [id, flags]);
  assert.equal(rowsOf1(), [[5, 0]]);
  let seenLater: Promise<number[][]> | undefined;
  // Started in the same turn, these share a transaction (group commit).
  const outcomes = await Promise.allSettled([
    store.write(() => {
      append(10)();
      store.search.add(message(10, 'otter'));
    }, checked),
    store.write(() => {
      throw new Error('refused');
    }, checked),
    store.write(append(11), checked),
    store.write(() => {
      // Another user's row: user 1's rows in memory are not among those this write changed.
      append(12, 2)();
      store.search.add(message(12, 'walrus'));
      // A write asked now may run before this batch's writes are told they were rolled back.
      setImmediate(() => (seenLater = store.write(rowsOf1)));
      throw new Error('spoiled');
    }, checked),
    store.write(append(13)),
    store.write(append(14), checked),
  ]);
  const reasons = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'kept' : outcome.reason instanceof RolledBackWithBatch ? 'rolled back' : (outcome.reason as Error).message));
  // Those after it never ran, and are refused too: a realm's writes are answered in order.
  assert.equal(reasons, ['rolled back', 'refused', 'rolled back', 'spoiled', 'rolled back', 'rolled back']);
  assert.equal(rowsOf1(), [[5, 0]], 'memory holds nothing of the batch');
  assert.equal(await seenLater, [[5, 0]], 'nor did it for a write that ran before the batch was refused');
  assert.equal([...store.search.matches(1, parseSearch('walrus'), 0, false)], [], "the failing write's postings went with it");
  // Tried again, writes rolled back with their batch are kept (and the next batch did not put
  // the rolled-back batch's postings).
  await Promise.all([store.write(append(13)), store.write(append(14), checked)]);
  assert.equal([...store.search.matches(1, parseSearch('otter'), 0, false)], [], "the batch's postings went with it");
  await store.close();
  const reopened = testStore(path);
  assert.equal([...reopened.userMessages.conversationRange(1, 3, 0)], [[5, 0], [13, 0], [14, 0]]);
  assert.equal([...reopened.userMessages.conversationRange(2, 3, 0)], []);
  await reopened.close();
  removeStores(path);
});

test("search postings wait for the batch's end; a failing write that put its predecessors' (a search within it) is rolled back alone", async () => {
  const path = tempStorePath();
  const store = testStore(path);
  const found = (word: string) => [...store.search.matches(1, parseSearch(word), 0, false)];
  const outcomes = await Promise.allSettled([
    store.write(() => store.search.add(message(20, 'walrus'))),
    store.write(() => {
      // A search within a write sees the batch's earlier messages (their postings are put first).
      const seen = found('walrus');
      store.search.add(message(21, 'walrus narwhal'));
      if (seen.length === 1) throw new Error('refused');
    }),
    store.write(() => {
      store.search.add(message(22, 'narwhal'));
      return found('walrus');
    }),
  ]);
  assert.equal(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal((outcomes[2] as PromiseFulfilledResult<unknown>).value, [20]);
  await store.close();
  const reopened = testStore(path);
  assert.equal([...reopened.search.matches(1, parseSearch('walrus'), 0, false)], [20]);
  assert.equal([...reopened.search.matches(1, parseSearch('narwhal'), 0, false)], [22]);
  await reopened.close();
  removeStores(path);
});

test("a failing write that moved a conversation's tail: the batch's other appends are kept, read back from the chunks and the tails", async () => {
  const path = tempStorePath();
  const setup = testStore(path);
  // A conversation whose last chunk is stored whole under its own key, as format 3 stored it.
  const chunk = Buffer.alloc(6);
  chunk.writeUInt32LE(1, 0);
  await setup.write(() => setup.tables.get('userMessageRows')!.put([1, 3, 1], chunk));
  await setup.close();
  const store = testStore(path);
  const outcomes = await Promise.allSettled([
    store.write(() => store.userMessages.appendMessage(3, 10, [1], [1])),
    store.write(() => {
      // Setting a row folds the conversation's log first (into the tail), then throws.
      store.userMessages.put(1, 3, 11, 2);
      throw new Error('refused');
    }),
    store.write(() => store.userMessages.appendMessage(3, 12, [1], [3])),
  ]);
  assert.equal(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
  const expected = [[1, 0], [10, 1], [12, 3]];
  assert.equal([...store.userMessages.conversationRange(1, 3, 0)], expected);
  await store.close();
  const reopened = testStore(path);
  assert.equal([...reopened.userMessages.conversationRange(1, 3, 0)], expected);
  assert.equal([...reopened.userMessages.range(1, 0)].map(([id, flags]) => [id, flags]), expected);
  await reopened.close();
  removeStores(path);
});

test("after a restart, a user's newest row is read from each conversation's end: a tail, or a chunk stored whole (format 3)", async () => {
  const path = tempStorePath();
  const setup = testStore(path);
  const chunk = (ids: number[]) => {
    const bytes = Buffer.alloc(ids.length * 6);
    ids.forEach((id, index) => bytes.writeUInt32LE(id, index * 6));
    return bytes;
  };
  await setup.write(() => {
    setup.tables.get('userMessageRows')!.put([1, 3, 1], chunk([1, 5]));
    setup.tables.get('userMessageRows')!.put([1, 3, 6], chunk([6, 9]));
  });
  await setup.write(() => {
    for (const id of [7, 8]) setup.userMessages.appendMessage(4, id, [1], [0]);
    for (const id of [10, 12]) setup.userMessages.appendMessage(4, id, [2], [0]);
  });
  await setup.close();
  const store = testStore(path);
  assert.equal([store.userMessages.newest(1), store.userMessages.newest(2), store.userMessages.newest(3)], [9, 12, -1]);
  await store.close();
  removeStores(path);
});

test('writes to a closed store are refused, each of them (none waits for a transaction that never comes)', async () => {
  const path = tempStorePath();
  const store = testStore(path);
  await store.close();
  const outcomes = await Promise.allSettled([store.write(() => 1), store.write(() => 2)]);
  assert.equal(
    outcomes.map((outcome) => outcome.status),
    ['rejected', 'rejected'],
  );
  assert.is((await Promise.allSettled([store.write(() => 3)]))[0]!.status, 'rejected');
  removeStores(path);
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
  const store = testStore(path);
  assert.equal([...store.sentBy(5)], [1, 3]);
  await store.write(() => {
    store.removeMessage({ ...record(1, 5), type: 'private' as const });
    store.saveMessage({ ...record(4, 5), type: 'private' as const });
  });
  assert.equal([...store.sentBy(5)], [3, 4]);
  assert.equal([...store.sentBy(6)], [2]);
  await store.close();
  removeStores(path);
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
  const store = testStore(path);
  assert.equal([...store.topicRange(3, 'plans', 0)], [[10, 'Plans'], [12, 'plans']]);
  assert.equal([...store.topicRange(3, 'plans', 11, true)], [[10, 'Plans']]);
  assert.ok(store.topicHasMessages(3, 'other'));
  assert.not.ok(store.topicHasMessages(3, 'none'));
  await store.close();
  removeStores(path);
});

test("rows given from a channel's history before their holders were recorded: traced once at open, stale ones dropped", async () => {
  const path = tempStorePath();
  const message = (id: number) => ({ id, realmId: 1, senderId: 8, recipientId: 30, type: 'stream' as const, channelId: 3, topic: 't', participants: [], content: 'x', renderedContent: '<p>x</p>', timestamp: 0, client: 'test' });
  const store = testStore(path);
  await store.write(() => {
    store.saveMessage(message(100));
    // User 7 never subscribed to channel 3 (conversation 30): a row for message 100, and one for
    // message 99, deleted since (its row left behind); user 8 is subscribed.
    store.userMessages.put(7, 30, 99, 1 | 2 | 1024);
    store.userMessages.put(7, 30, 100, 1 | 2 | 1024);
    store.userMessages.put(8, 30, 100, 1);
  });
  await store.close();
  // As a directory written before historicalHolders: the realm's records, and no trace yet.
  const env = open({ path, maxDbs: 64 });
  const table = <V>(name: string) => env.openDB<V, Key>({ name });
  await env.transaction(() => {
    table<{ id: number }>('realms').put(1, { id: 1 });
    for (const id of [7, 8]) table<{ realmId: number; id: number }>('users').put([1, id], { realmId: 1, id });
    table<{ realmId: number; id: number; recipientId: number }>('channels').put([1, 3], { realmId: 1, id: 3, recipientId: 30 });
    table<{ realmId: number; channelId: number; userId: number; active: boolean }>('subscriptions').put([1, 3, 8], { realmId: 1, channelId: 3, userId: 8, active: true });
    table<number>('meta').remove('historicalHoldersTraced');
  });
  await env.close();

  const traced = testStore(path);
  assert.equal(traced.historicalHoldersOf(1, 30), [7], 'the user who never subscribed is recorded; the subscriber is not');
  assert.equal([...traced.userMessages.conversationRange(7, 30, 0)], [[100, 1 | 2 | 1024]], "the deleted message's row is gone, the other kept");
  assert.equal([...traced.userMessages.conversationRange(8, 30, 0)], [[100, 1]]);
  await traced.close();
  removeStores(path);
});

test('the data format: recorded in a new directory, brought up from format 1, and a newer one refused untouched', async () => {
  const fresh = tempStorePath();
  const store = testStore(fresh);
  assert.is(store.migratedFrom, null);
  assert.is(store.format, STORE_FORMAT);
  await store.close();

  // Written before the format was recorded: a realm, no format.
  const old = tempStorePath();
  let env = open({ path: old, maxDbs: 64 });
  await env.openDB({ name: 'realms' }).put(1, { id: 1, subdomain: '', name: 'Old' });
  await env.close();
  const migrated = testStore(old);
  assert.is(migrated.migratedFrom, 1);
  assert.is(migrated.format, STORE_FORMAT);
  await migrated.close();

  // Written by a newer version.
  env = open({ path: fresh, maxDbs: 64 });
  await env.openDB({ name: 'meta' }).put('storeFormat', STORE_FORMAT + 1);
  await env.close();
  assert.throws(() => testStore(fresh), (error: unknown) => error instanceof StoreFormatError && error.message.includes(`data format ${STORE_FORMAT + 1}, written by a newer Parley; this version reads formats up to ${STORE_FORMAT}`));
  env = open({ path: fresh, maxDbs: 64 });
  assert.is(env.openDB({ name: 'meta' }).get('storeFormat'), STORE_FORMAT + 1, 'left as it was');
  await env.close();
  removeStores(fresh, old);
});

test.run();
