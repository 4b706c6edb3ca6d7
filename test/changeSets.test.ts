// Change sets: every committed write hands its puts and removes to the realm's log, in commit
// order, before it is answered; made to an empty store in that order (its messages indexed for
// search as they come: postings are not logged; a conversation log's folds made again where their
// markers stand) they rebuild the realm row for row (what a cluster node taking a realm over
// relies on). So do a realm's rows copied whole, in either form (a snapshot, an export's copy).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FOLD_LOG, type Change } from '../src/store/changes.js';
import { realmDigest, realmRows } from '../src/store/realmData.js';
import { Store } from '../src/store/store.js';
import { MemoryLog } from './helpers/memoryLog.js';
import { startTestServer } from './helpers/server.js';

test('the logged change sets of a day of chat rebuild the realm byte for byte', async () => {
  const log = new MemoryLog();
  const server = await startTestServer({}, { realmLog: log });
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  // Enough for Verona's log to fold three times, and its subscribers' first chunks to fill.
  const sends = await Promise.all(
    Array.from({ length: 200 }, (_, index) => (index % 3 === 0 ? othello : hamlet).post('/messages', { type: 'stream', to: 'Verona', topic: `topic ${index % 4}`, content: `message ${index} **bold**` })),
  );
  const ids = sends.map((sent) => Number(sent.body.id));
  const othelloId = Number((await othello.get('/users/me')).body.user_id);
  await hamlet.post('/messages', { type: 'private', to: [othelloId], content: 'a secret' });
  await hamlet.patch(`/messages/${ids[1]}`, { content: 'edited' });
  await othello.post(`/messages/${ids[2]}/reactions`, { emoji_name: 'octopus' });
  await othello.post('/messages/flags', { op: 'add', flag: 'starred', messages: [ids[3], ids[4]] });
  await othello.post('/messages/flags/narrow', { op: 'add', flag: 'read', anchor: 'oldest', num_before: 0, num_after: 1000, narrow: [] });
  await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name: 'brand new' }] });
  await hamlet.post('/drafts', { drafts: [{ type: 'stream', to: [], topic: 'later', content: 'unfinished', timestamp: 1 }] });
  await hamlet.delete(`/messages/${ids[5]}`);
  await iago.post(`/streams/${(await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id}/delete_topic`, { topic_name: 'topic 2' });
  await iago.delete(`/users/${othelloId}`);
  assert.ok(log.entries.length > 40, `${log.entries.length} writes logged`);
  // The search index's postings (and new messages' words), derived from the messages, are not
  // logged: a replay indexes them.
  assert.equal(log.entries.flatMap(({ changes }) => changes.filter(([table]) => table === 'searchChunks')), []);
  // A fold's writes (each recipient's rows into their chunks) are not logged either, only where it
  // happened: the replay folds there. The sends that fold Verona's log (writing their own rows to
  // it) log no chunk.
  const puts = (changes: readonly Change[], table: string) => changes.some(([name, , value]) => name === table && value !== undefined);
  const folding = log.entries.filter(({ changes }) => changes.some(([name]) => name === FOLD_LOG) && puts(changes, 'userMessageLog'));
  assert.ok(folding.length >= 3, `${folding.length} sends folded a log`);
  for (const { changes } of folding) assert.equal(changes.filter(([table]) => table === 'userMessageTails' || table === 'userMessageRows'), []);

  await server.parley.close();
  const original = new Store(join(server.config.dataDir, 'parley.mdb'));
  const replicaDir = mkdtempSync(join(tmpdir(), 'parley-replica-'));
  const replica = new Store(join(replicaDir, 'parley.mdb'));
  try {
    for (const { changes } of log.entries) await replica.applyChanges(changes, { reindex: true });
    const rows = [...realmRows(original, 1)].length;
    assert.ok(rows > 100, `${rows} rows`);
    assert.is(realmDigest(replica, 1), realmDigest(original, 1));
  } finally {
    await Promise.all([original.close(), replica.close()]);
    rmSync(replicaDir, { recursive: true, force: true });
    rmSync(server.config.dataDir, { recursive: true, force: true });
  }
});

test("a realm's rows copied whole rebuild it byte for byte, in their stored form as in the change encoding", async () => {
  const server = await startTestServer();
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'copied', content: 'a **bold** word' });
  await othello.post(`/messages/${sent.body.id}/reactions`, { emoji_name: 'octopus' });
  await othello.post('/messages/flags', { op: 'add', flag: 'starred', messages: [sent.body.id] });
  await hamlet.post('/messages', { type: 'private', to: [Number((await othello.get('/users/me')).body.user_id)], content: 'a secret' });
  await server.parley.close();
  const original = new Store(join(server.config.dataDir, 'parley.mdb'));
  const copiesDir = mkdtempSync(join(tmpdir(), 'parley-copies-'));
  const [stored, encoded] = [new Store(join(copiesDir, 'stored.mdb')), new Store(join(copiesDir, 'encoded.mdb'))];
  try {
    await stored.applyChanges([...realmRows(original, 1, { form: 'stored' })], { form: 'stored' });
    await encoded.applyChanges([...realmRows(original, 1)], { form: 'change' });
    // The digest covers every row, the search index's among them.
    assert.is(realmDigest(stored, 1), realmDigest(original, 1));
    assert.is(realmDigest(encoded, 1), realmDigest(original, 1));
  } finally {
    await Promise.all([original.close(), stored.close(), encoded.close()]);
    rmSync(copiesDir, { recursive: true, force: true });
    rmSync(server.config.dataDir, { recursive: true, force: true });
  }
});

test('a write the log refuses is not answered as done', async () => {
  const log = new MemoryLog();
  const server = await startTestServer({}, { realmLog: log });
  const hamlet = await server.as('hamlet@zulip.com');
  log.refusing = true;
  const refused = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'lost', content: 'not acknowledged' });
  assert.equal([refused.status, refused.body.code], [503, 'REALM_UNAVAILABLE']);
  log.refusing = false;
  // The local copy now holds a change the log does not: this node serves the realm no more.
  assert.equal([(await hamlet.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).status], [503]);
  await server.stop();
});

test.run();
