// Full-text search benchmark (issue #20, part 4): the same generated messages in Parley (sent
// through the realm's send command, indexed as they are sent) and in PostgreSQL in Zulip's own
// layout (zerver_message with a search_tsvector column under a GIN index, zerver_usermessage),
// then each query class asked of both, newest first with a limit of 100: GET /messages with a
// search narrow against a Parley server, and Zulip's query (plainto_tsquery, the user's messages
// or a channel's, ILIKE for a quoted phrase) against PostgreSQL. Reports p50/p99 per class, the
// index's size on disk and its cost per sent message; writes bench/results/search.json and an HTML
// chart beside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/setup.js';
import { loadConfig } from '../src/config.js';
import { EventQueues } from '../src/events/queues.js';
import { indexTerms, parseSearch } from '../src/messages/search.js';
import type { RawTerm, ResolvedTerm } from '../src/messages/narrow.js';
import type { RealmActor } from '../src/realm/actor.js';
import { Realms } from '../src/realm/registry.js';
import type { Store } from '../src/store/store.js';
import { messageWindow } from '../src/store/window.js';
import { Role } from '../src/users/records.js';
import { ApiClient } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { startPostgres, type Postgres } from './lib/postgres.js';
import { addChannel, addUser } from './lib/dataset.js';
import { createIndexes, createZulipTables, insertUserMessages, MESSAGE_INDEXES, USERMESSAGE_INDEXES } from './lib/zulipSchema.js';
import { percentile, printTable, writeResult, type Row } from './lib/stats.js';
import { seededRandom } from './lib/random.js';

export interface SearchOptions {
  messages: number;
  repeats: number;
  quick: boolean;
}

const CHANNELS = 10;
/** The bench user reads channels 0-7 (subscribed); 8 and 9 are other users' only. */
const BENCH_CHANNELS = 8;
const OTHER_USERS = 9;
const LIMIT = 100;

/** Made-up two-syllable words: the background vocabulary, used with a skewed frequency. */
const vocabulary = (() => {
  const syllables = [...'bdfgklmnprstvz'].flatMap((consonant) => [...'aeiou'].map((vowel) => consonant + vowel));
  return syllables.flatMap((first) => syllables.map((second) => first + second));
})();

/** Users by index: 0 is the bench user, 1-9 the others. A channel's subscribers. */
const subscribers = (channel: number): number[] => [...(channel < BENCH_CHANNELS ? [0] : []), ...Array.from({ length: OTHER_USERS }, (_, i) => i + 1).filter((user) => (channel + user) % 2 === 0)];
const channelName = (channel: number): string => `channel ${channel}`;

interface Generated {
  channel: number;
  sender: number;
  topic: string;
  content: string;
}

/** Words planted in exactly this many messages (all in channel 3, which the bench user reads). */
const planted = [
  { word: 'rare1x', count: 1 },
  { word: 'ten1x', count: 10 },
  { word: 'hundred1x', count: 100 },
  { word: 'thousand1x', count: 1000 },
];

function* generate(total: number): Generator<Generated> {
  const next = seededRandom(20);
  const steps = planted.map(({ word, count }) => ({ word, count, step: Math.max(10, Math.floor(total / count / 10) * 10) }));
  for (let i = 0; i < total; i++) {
    const channel = i % CHANNELS;
    const members = subscribers(channel);
    const words = Array.from({ length: 8 }, () => vocabulary[Math.floor(vocabulary.length * next() ** 2)]!);
    if (next() < 0.9) words.splice(3, 0, 'update');
    if (next() < 0.1) words.splice(2, 0, 'kestrel');
    if (next() < 0.1) words.splice(5, 0, 'lantern');
    // "harbor" and "light" apart (first and last), and together as a phrase in a few.
    if (next() < 0.05) words.unshift('harbor');
    if (next() < 0.05) words.push('light');
    if (next() < 0.005) words.splice(4, 0, 'harbor', 'light');
    for (const { word, count, step } of steps) if (i % step === 3 && i < step * count) words.push(word);
    yield { channel, sender: members[i % members.length]!, topic: `topic ${Math.floor(i / CHANNELS) % 40}`, content: words.join(' ') };
  }
}

interface QueryClass {
  name: string;
  search: string;
  channel?: number;
}

const classes: QueryClass[] = [
  { name: 'word in 1 message', search: 'rare1x' },
  { name: 'word in 10 messages', search: 'ten1x' },
  { name: 'word in 100 messages', search: 'hundred1x' },
  { name: 'word in 1,000 messages', search: 'thousand1x' },
  { name: 'word in most messages', search: 'update' },
  { name: 'two words', search: 'kestrel lantern' },
  { name: 'phrase', search: '"harbor light"' },
  { name: 'word in one channel', search: 'kestrel', channel: 3 },
  { name: 'no match', search: 'nonexistentword' },
];

interface Built {
  realm: RealmActor;
  realmId: number;
  userIds: number[];
  apiKey: string;
  messageIds: number[];
  sendSeconds: number;
}

async function buildParley(realms: Realms, total: number): Promise<Built> {
  const realm = await realms.create({ subdomain: '', name: 'Search' });
  const bench = await addUser(realm, 'bench@search.test', Role.owner);
  const others = [];
  for (let i = 1; i <= OTHER_USERS; i++) others.push(await addUser(realm, `user${i}@search.test`, Role.member));
  const userIds = [bench.userId, ...others.map((user) => user.userId)];
  for (let channel = 0; channel < CHANNELS; channel++) await addChannel(realm, bench.userId, channelName(channel), subscribers(channel).map((user) => userIds[user]!));
  const messageIds: number[] = [];
  const start = performance.now();
  let batch: Promise<{ id: number }>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    messageIds.push(...(await Promise.all(batch)).map((sent) => sent.id));
    batch = [];
    if (messageIds.length % 100_000 === 0) console.error(`parley: ${messageIds.length} messages sent`);
  };
  for (const message of generate(total)) {
    batch.push(realm.ask('messages.send', userIds[message.sender]!, { type: 'stream', to: [channelName(message.channel)], topic: message.topic, content: message.content, readBySender: true, client: 'bench' }));
    if (batch.length === 2000) await flush();
  }
  await flush();
  return { realm, realmId: realm.realm.id, userIds, apiKey: bench.apiKey, messageIds, sendSeconds: (performance.now() - start) / 1000 };
}

/** Zulip's tables and indexes, filled with the same messages (IDs as Parley gave them). */
async function loadPostgres(postgres: Postgres, messageIds: readonly number[]): Promise<number> {
  const db = postgres.client;
  const start = performance.now();
  await createZulipTables(db);
  const BATCH = 10_000;
  let rows: { id: number; sender: number; channel: number; topic: string; content: string }[] = [];
  const flush = async () => {
    // The tsvector as Zulip's trigger computes it: the topic and the rendered content.
    await db.query(
      `INSERT INTO zerver_message (id, realm_id, sender_id, recipient_id, subject, content, rendered_content, date_sent, search_tsvector)
       SELECT id, 1, sender, recipient, subject, content, '<p>' || content || '</p>', now(), to_tsvector('english', subject || ' ' || '<p>' || content || '</p>')
       FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[]) AS t(id, sender, recipient, subject, content)`,
      [rows.map((row) => row.id), rows.map((row) => row.sender), rows.map((row) => row.channel + 1), rows.map((row) => row.topic), rows.map((row) => row.content)],
    );
    const users: number[] = [];
    const messages: number[] = [];
    for (const row of rows) {
      for (const user of subscribers(row.channel)) {
        users.push(user);
        messages.push(row.id);
      }
    }
    await insertUserMessages(db, users, messages);
    rows = [];
  };
  let index = 0;
  for (const message of generate(messageIds.length)) {
    rows.push({ id: messageIds[index++]!, sender: message.sender, channel: message.channel, topic: message.topic, content: message.content });
    if (rows.length === BATCH) await flush();
  }
  if (rows.length > 0) await flush();
  // The keys, and the indexes Zulip's search queries use.
  await createIndexes(db, [MESSAGE_INDEXES.pkey, USERMESSAGE_INDEXES.pkey, MESSAGE_INDEXES.searchTsvector, USERMESSAGE_INDEXES.unique, MESSAGE_INDEXES.realmRecipientId]);
  await db.query('VACUUM ANALYZE');
  return (performance.now() - start) / 1000;
}

/** Zulip's search query: the user's messages (or a channel's, with the user's flags if any), the
 * words through plainto_tsquery, a quoted phrase also as ILIKE on content or topic. */
function zulipQuery(query: QueryClass): { text: string; values: unknown[] } {
  const phrases = [...query.search.matchAll(/"([^"]+)"/g)].map((match) => `%${match[1]}%`);
  // $1: the bench user's ID in zerver_usermessage (users are numbered from 0 there).
  const values: unknown[] = [0, query.search.replace(/"/g, ' ')];
  const phraseSql = phrases.map((phrase) => {
    values.push(phrase);
    return ` AND (m.content ILIKE $${values.length} OR m.subject ILIKE $${values.length})`;
  });
  if (query.channel === undefined) {
    return {
      text: `SELECT um.message_id AS id, um.flags, m.subject, m.rendered_content FROM zerver_usermessage um JOIN zerver_message m ON m.id = um.message_id
        WHERE um.user_profile_id = $1 AND m.search_tsvector @@ plainto_tsquery('english', $2)${phraseSql.join('')} ORDER BY um.message_id DESC LIMIT ${LIMIT}`,
      values,
    };
  }
  values.push(query.channel + 1);
  return {
    text: `SELECT m.id, um.flags, m.subject, m.rendered_content FROM zerver_message m LEFT OUTER JOIN zerver_usermessage um ON um.message_id = m.id AND um.user_profile_id = $1
      WHERE m.realm_id = 1 AND m.recipient_id = $${values.length} AND m.search_tsvector @@ plainto_tsquery('english', $2)${phraseSql.join('')} ORDER BY m.id DESC LIMIT ${LIMIT}`,
    values,
  };
}

interface Timing {
  p50: number;
  p99: number;
  found: number;
}

/** Rounds run before timing (the JIT compiles the hot paths; PostgreSQL fills its caches). */
const WARM_UP = 5;

async function time(repeats: number, run: () => Promise<number>): Promise<Timing> {
  const found = await run();
  for (let round = 1; round < WARM_UP; round++) await run();
  const latencies: number[] = [];
  for (let round = 0; round < repeats; round++) {
    const start = performance.now();
    await run();
    latencies.push(performance.now() - start);
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), found };
}

/** The search itself, in process: the window of the narrow (IDs and the user's flags, what
 * Zulip's query returns before it builds the messages) from the index, access checked. */
function indexSearch(store: Store, realmId: number, userId: number, query: QueryClass): () => Promise<number> {
  const channels = [...store.channels.ofRealm(realmId)];
  const channel = query.channel === undefined ? undefined : channels.find((row) => row.name === channelName(query.channel!));
  const terms: ResolvedTerm[] = [...(channel ? [{ op: 'channel' as const, channelId: channel.id, negated: false }] : []), { op: 'search', query: parseSearch(query.search), negated: false }];
  const request = { realmId, userId, terms, anchor: 'newest' as const, numBefore: LIMIT, numAfter: 0, includeAnchor: true, historyChannel: channel, channelOf: (recipientId: number) => channels.find((row) => row.recipientId === recipientId)?.id };
  return async () => messageWindow(store, request).entries.map((entry) => [entry.id, entry.flags]).length;
}

/** GET /messages on one kept-alive connection (as PostgreSQL's client keeps its one): the
 * number of messages found. */
function searcher(baseUrl: string, email: string, apiKey: string): (narrow: RawTerm[]) => Promise<number> {
  const client = new ApiClient(baseUrl, { email, apiKey }).keptAlive();
  return async (narrow) => {
    const response = await client.get('/messages', { anchor: 'newest', num_before: LIMIT, num_after: 0, narrow });
    const messages = response.body.messages as unknown[] | undefined;
    if (response.status !== 200 || !messages) throw new Error(JSON.stringify(response.body));
    return messages.length;
  };
}

/** Bytes a sub-database takes in the LMDB file, and its entries. */
function tableSize(store: Store, name: string): { bytes: number; entries: number } {
  const stats = store.tables.get(name)!.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number; entryCount: number };
  return { bytes: (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages) * stats.pageSize, entries: stats.entryCount };
}

/** Messages a batch of the store's group commit holds under load (64 senders at once). */
const BATCH = 64;

/** The index's cost per message inside a write, as the store's write batches pay it (a batch's
 * postings put at its end, each term's at once): for a sample of generated messages written to a
 * realm of their own (then taken out again), sent one at a time (a batch each) and in batches of
 * BATCH. */
function indexCost(store: Store, sample: number): { oneAtATime: number; batched: number; postings: number } {
  const messages = [...generate(sample)].map((message, i) => ({ id: 1e12 + i, realmId: 999_999, topic: message.topic, renderedContent: `<p>${message.content}</p>` }));
  const microseconds = (perBatch: number) => {
    let elapsed = 0;
    store.env.transactionSync(() => {
      const start = performance.now();
      for (let at = 0; at < messages.length; at += perBatch) {
        store.search.inBatch(() => {
          for (const message of messages.slice(at, at + perBatch)) store.search.add(message);
        });
      }
      elapsed = performance.now() - start;
    });
    store.env.transactionSync(() => {
      for (const message of messages) store.search.remove(message);
    });
    return (elapsed * 1000) / sample;
  };
  const postings = messages.reduce((sum, message) => sum + indexTerms(message).size, 0);
  return { oneAtATime: microseconds(1), batched: microseconds(BATCH), postings: postings / sample };
}

export async function runSearch(options: SearchOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-search-'));
  const postgres = await startPostgres({ shared_buffers: '256MB', fsync: 'off', synchronous_commit: 'off', max_wal_size: '4GB' });
  try {
    const config = { ...loadConfig({ PARLEY_LOG_LEVEL: 'warn' }), dataDir, mode: 'production' as const };
    const store = openStore(config);
    const realms = new Realms(store, config, new EventQueues(store));
    const built = await buildParley(realms, options.messages);
    await realms.idle();
    const chunks = tableSize(store, 'searchChunks');
    const words = tableSize(store, 'searchWords');
    const cost = indexCost(store, options.quick ? 2_000 : 20_000);
    const storeBytes = store.fileBytes();
    const results: Record<string, { index: Timing; http?: Timing; postgres?: Timing }> = {};
    for (const query of classes) results[query.name] = { index: await time(options.repeats, indexSearch(store, built.realmId, built.userIds[0]!, query)) };
    await store.close();

    const rows: Row[] = [];
    const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production', PARLEY_LOG_LEVEL: 'warn' });
    try {
      const search = searcher(server.baseUrl, 'bench@search.test', built.apiKey);
      for (const query of classes) {
        const narrow: RawTerm[] = [...(query.channel === undefined ? [] : [['channel', channelName(query.channel)] as RawTerm]), ['search', query.search]];
        results[query.name]!.http = await time(options.repeats, () => search(narrow));
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }

    const plans: Record<string, string[]> = {};
    let postgresLoad: number | null = null;
    let postgresIndex: { gin_bytes: number; tsvector_bytes: number; table_bytes: number } | null = null;
    if (typeof postgres === 'string') console.log(`PostgreSQL: ${postgres}; Parley's numbers only`);
    else {
      postgresLoad = await loadPostgres(postgres, built.messageIds);
      const sizes = await postgres.client.query<{ gin: string; tsv: string; tbl: string }>(
        "SELECT pg_relation_size('zerver_message_search_tsvector') AS gin, (SELECT sum(pg_column_size(search_tsvector)) FROM zerver_message) AS tsv, pg_total_relation_size('zerver_message') AS tbl",
      );
      const size = sizes.rows[0]!;
      postgresIndex = { gin_bytes: Number(size.gin), tsvector_bytes: Number(size.tsv), table_bytes: Number(size.tbl) };
      for (const query of classes) {
        const { text, values } = zulipQuery(query);
        results[query.name]!.postgres = await time(options.repeats, async () => (await postgres.client.query({ text, values })).rows.length);
        // The plan PostgreSQL chose, for the JSON: it explains the times.
        const plan = await postgres.client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN ${text}`, values });
        plans[query.name] = plan.rows.map((row) => row['QUERY PLAN']);
      }
    }

    for (const query of classes) {
      const { index, http, postgres: pgTiming } = results[query.name]!;
      const times = (ratio: number) => `${ratio.toFixed(1)}x`;
      rows.push({
        'query class': query.name,
        'index p50 ms': index.p50,
        'index p99 ms': index.p99,
        'HTTP p50 ms': http!.p50,
        'HTTP p99 ms': http!.p99,
        'PostgreSQL p50 ms': pgTiming?.p50 ?? '-',
        'PostgreSQL p99 ms': pgTiming?.p99 ?? '-',
        'PG/index p50': pgTiming ? times(pgTiming.p50 / index.p50) : '-',
        'PG/HTTP p50': pgTiming ? times(pgTiming.p50 / http!.p50) : '-',
        'found (Parley/PG)': `${http!.found}/${pgTiming?.found ?? '-'}`,
      });
    }
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const title = `search: ${options.messages} messages, ${CHANNELS} channels, ${OTHER_USERS + 1} users, newest ${LIMIT}, ${options.repeats} repeats${typeof postgres === 'string' ? '' : ` (PostgreSQL ${postgres.version})`}`;
    printTable(title, rows);
    const notes = [
      `Parley index: ${mib(chunks.bytes + words.bytes)} MiB on disk (${chunks.entries} chunks of postings, ${words.entries} words; ${((chunks.bytes + words.bytes) / options.messages).toFixed(0)} bytes per message); store file ${mib(storeBytes)} MiB.`,
      `Index cost per sent message (${cost.postings.toFixed(1)} postings) inside the write: ${cost.oneAtATime.toFixed(1)} µs sent one at a time, ${cost.batched.toFixed(1)} µs in batches of ${BATCH}; whole send through the realm actor ${((built.sendSeconds * 1e6) / options.messages).toFixed(0)} µs (${built.sendSeconds.toFixed(1)} s for all).`,
      postgresIndex ? `PostgreSQL: GIN index ${mib(postgresIndex.gin_bytes)} MiB, tsvector column ${mib(postgresIndex.tsvector_bytes)} MiB, zerver_message with indexes ${mib(postgresIndex.table_bytes)} MiB; loaded in ${postgresLoad!.toFixed(1)} s.` : 'PostgreSQL: not run.',
    ];
    for (const note of notes) console.log(note);
    const name = options.quick ? 'search-quick' : 'search';
    const series = ['Parley index (in process)', 'Parley GET /messages (HTTP)', 'PostgreSQL (Zulip query)'];
    const groups = classes.map((query) => {
      const { index, http, postgres: pgTiming } = results[query.name]!;
      return { label: query.name, values: { [series[0]!]: index.p50, [series[1]!]: http!.p50, [series[2]!]: pgTiming?.p50 ?? NaN } };
    });
    console.log(`results: ${writeResult(name, { options, postgres: typeof postgres === 'string' ? { skipped: postgres } : { version: postgres.version, load_seconds: postgresLoad, index: postgresIndex }, parley_index: { chunks, words, store_bytes: storeBytes, index_microseconds_per_message: { one_at_a_time: cost.oneAtATime, batched: cost.batched }, postings_per_message: cost.postings, send_seconds: built.sendSeconds }, rows, results, postgres_plans: plans }, { charts: [{ title: `${title}: p50`, unit: 'ms', series, groups }], notes })}`);
  } finally {
    if (typeof postgres !== 'string') await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
