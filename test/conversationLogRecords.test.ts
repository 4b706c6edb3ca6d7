// A conversation log's record (conversationLog.ts) holds a message's rows in a byte or two a
// recipient; records written by format 8 and before (6 bytes a row) are still read, whichever rows
// and flags they hold, and a store opened on them folds them into the chunks as before.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readRecord, recordValue } from '../src/store/conversationLog.js';
import { random, removeStores, tempStorePath, testStore } from './helpers/stores.js';

const rowsOf = (value: Buffer): [number, number][] => {
  const rows: [number, number][] = [];
  readRecord(value, (userId, flags) => rows.push([userId, flags]));
  return rows.sort((a, b) => a[0] - b[0]);
};

/** A record as format 8 wrote it: uint32 user ID and uint16 flags a row. */
function format8(rows: readonly [number, number][]): Buffer {
  const value = Buffer.alloc(rows.length * 6);
  rows.forEach(([userId, flags], index) => {
    value.writeUInt32LE(userId, index * 6);
    value.writeUInt16LE(flags, index * 6 + 4);
  });
  return value;
}

test('a record reads back the rows it was written with, in a byte or two a recipient, and is never taken for a record of format 8', () => {
  const next = random(5);
  for (let size = 1; size <= 300; size++) {
    const userIds = new Set<number>();
    while (userIds.size < size) userIds.add(size % 7 === 0 ? Math.floor(next() * 2 ** 32) : 1 + Math.floor(next() * 400));
    const rows = [...userIds].map((userId): [number, number] => [userId, [0, 0, 1, 2, 8, 4096, 65535][Math.floor(next() * 7)]!]);
    const expected = [...rows].sort((a, b) => a[0] - b[0]);
    const value = recordValue(rows.map(([userId]) => userId), rows.map(([, flags]) => flags));
    assert.ok(value.length % 6 !== 0, `${size} rows: not a multiple of 6 bytes`);
    assert.equal(rowsOf(value), expected, `${size} rows`);
    assert.equal(rowsOf(format8(expected)), expected, `${size} rows as format 8 wrote them`);
  }
  // A channel of a hundred subscribers with IDs close together: the sender's row read, the others not.
  const channel = Array.from({ length: 100 }, (_, index): [number, number] => [1000 + index * 3, index === 0 ? 1 : 0]);
  const value = recordValue(channel.map(([userId]) => userId), channel.map(([, flags]) => flags));
  assert.ok(value.length <= 110, `${value.length} bytes for a hundred rows (format 8: 600)`);
});

test("a store's logs of format 8 records are read, grown and folded into the chunks", async () => {
  const path = tempStorePath();
  let store = testStore(path);
  const members = [3, 5, 8];
  // The first message gives each member a chunk in conversation 10; the next ones go to its log.
  for (let id = 1; id <= 4; id++) await store.write(() => store.userMessages.appendMessage(10, id, members, members.map((userId) => (userId === 3 ? 1 : id % 2))));
  const log = store.tables.get('userMessageLog')!;
  assert.is(log.getKeysCount({ start: [10], end: [11] }), 3, 'messages 2 to 4 in the log');
  // Rewritten as format 8 wrote them, then read by a store opened afresh.
  await store.write(() => {
    for (const { key, value } of log.getRange({ start: [10], end: [11] }) as Iterable<{ key: [number, number]; value: Buffer }>) log.put(key, format8(rowsOf(value)));
  });
  await store.close();
  store = testStore(path);
  const expected = (userId: number) => [1, 2, 3, 4].map((id) => [id, userId === 3 ? 1 : id % 2]);
  for (const userId of members) assert.equal([...store.userMessages.conversationRange(userId, 10, 0)], expected(userId), `user ${userId}'s rows`);
  await store.write(() => store.userMessages.appendMessage(10, 5, members, [1, 1, 1]));
  await store.write(() => store.userMessages.appendMessage(10, 6, [...members, 9], [0, 0, 0, 0]));
  const keys = [...store.tables.get('userMessageLog')!.getKeys({ start: [10], end: [11] })];
  assert.equal(keys, [[10, 6]], "a new member's first row folded the log (the others' rows of message 6 went to it)");
  for (const userId of members) assert.equal([...store.userMessages.conversationRange(userId, 10, 0)], [...expected(userId), [5, 1], [6, 0]], `user ${userId}'s rows after the fold`);
  await store.close();
  removeStores(path);
});

test.run();
