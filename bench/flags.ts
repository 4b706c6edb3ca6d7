// Narrow-flag benchmark (issue: messages and flags): a realm of 100 users and 50 channels with
// 200,000 messages (each user in 25 channels, the bench user in all, half of its messages unread);
// marks 5,000-message windows read and unread by narrow, at the realm actor and through HTTP, and
// updates flags on 1,000 message IDs. The dataset is built straight into a data directory
// (lib/dataset.ts: each user in half of the channels, the bench user in all). When PostgreSQL is
// installed, the same rounds are also asked of Zulip's data model in the same run, loaded with
// the same realm (lib/zulipFlagsModel.ts), and each case's Zulip-model p50 is divided by Parley's
// HTTP p50.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/setup.js';
import { loadConfig } from '../src/config.js';
import { EventQueues } from '../src/events/queues.js';
import type { RawTerm } from '../src/messages/narrow.js';
import { Realms } from '../src/realm/registry.js';
import { formEncode } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { buildDataset, type Dataset } from './lib/dataset.js';
import { LeanClient } from './lib/leanClient.js';
import { latencyChart, percentile, printTable, writeResult, type Row } from './lib/stats.js';
import { startZulipFlagsModel, type NarrowFlagsRequest, type ZulipFlagsModel } from './lib/zulipFlagsModel.js';

export interface FlagsOptions {
  users: number;
  channels: number;
  messages: number;
  repeats: number;
  quick: boolean;
}

const WINDOW = 5000;

type Case = { name: string; narrow: RawTerm[] };

/** What the HTTP and Zulip-model rounds need of the dataset (the actor's realm, store and caches
 * are let go first, so the bench process's own garbage collection does not land in their figures). */
type Requests = Pick<Dataset, 'ownerId' | 'ownerEmail' | 'apiKey' | 'messageIds' | 'channelNames'>;

function cases(dataset: Requests): Case[] {
  const channel: RawTerm = ['channel', dataset.channelNames[0]!];
  return [
    { name: 'narrow []', narrow: [] },
    { name: 'narrow [] + is:unread', narrow: [['is', 'unread']] },
    { name: 'channel', narrow: [channel] },
    { name: 'channel + is:unread', narrow: [channel, ['is', 'unread']] },
    { name: 'channel + topic', narrow: [channel, ['topic', 'topic 0']] },
    { name: 'channel + topic + is:unread', narrow: [channel, ['topic', 'topic 0'], ['is', 'unread']] },
  ];
}

interface Measured {
  /** The first request's latency: it reads the user's rows and the channels' topics into memory. */
  first: number;
  latencies: number[];
  updated: number;
  seconds: number;
}

/** Rounds before timing (the first one reported apart): windows marked read and unread again, while
 * the JIT compiles the path. A server just started answers a window of everything in 2.6-4.1 ms
 * (p50) over its 10th to 30th rounds and in 2.0 ms from its 30th on: ten rounds measured the JIT,
 * not the server. */
const WARM_UP = 40;

async function measure(repeats: number, run: (round: number) => Promise<number>): Promise<Measured> {
  const timed = async (round: number) => {
    const start = performance.now();
    const updated = await run(round);
    return { updated, ms: performance.now() - start };
  };
  const { ms: first } = await timed(0);
  for (let round = 1; round < WARM_UP; round++) await timed(round);
  const latencies: number[] = [];
  let updated = 0;
  for (let round = WARM_UP; round < WARM_UP + repeats; round++) {
    const result = await timed(round);
    updated += result.updated;
    latencies.push(result.ms);
  }
  // Rounds come in pairs (marked, then back): an odd count gets one more, untimed, so every path
  // ends with the flags it started with (Zulip's model is loaded after Parley's rounds).
  if ((WARM_UP + repeats) % 2 === 1) await run(WARM_UP + repeats);
  return { first, latencies, updated, seconds: latencies.reduce((a, b) => a + b, 0) / 1000 };
}

const row = (path: string, name: string, result: Measured): Row => ({
  path,
  case: name,
  'first ms': result.first,
  'p50 ms': percentile(result.latencies, 50),
  'p99 ms': percentile(result.latencies, 99),
  'updated/s': Math.round(result.updated / result.seconds),
});

/** Each round marks a window read, the next one unread again (alternating), so every round updates.
 * Marking unread drops an `is:unread` term: the window has no unread message left to find. */
function narrowRequest(dataset: Requests, narrow: RawTerm[], round: number): NarrowFlagsRequest {
  const windows = Math.max(1, Math.floor(dataset.messageIds.length / WINDOW));
  const anchor = dataset.messageIds[(Math.floor(round / 2) % windows) * WINDOW]!;
  const op = round % 2 === 0 ? ('add' as const) : ('remove' as const);
  const terms = op === 'add' ? narrow : narrow.filter((term) => !Array.isArray(term) || term[0] !== 'is' || term[1] !== 'unread');
  return { anchor, numBefore: 0, numAfter: WINDOW - 1, includeAnchor: true, narrow: terms, op, flag: 'read' };
}

type Results = { path: string; name: string; result: Measured }[];

/** The 1,000 message IDs of a round of POST /messages/flags: one slice of 1,000 (the bench had
 * copied the rest of the 200,000 IDs first, ~0.9 ms of every timed round, its garbage collected). */
function idsOf(dataset: Requests, round: number): number[] {
  const start = (round * 1000) % Math.max(1, dataset.messageIds.length - 1000);
  return dataset.messageIds.slice(start, start + 1000);
}

const STARRED = 'POST /messages/flags, 1,000 IDs';

/** How a path answers the two requests: the flags changed by a narrow's window, the IDs starred
 * or unstarred. */
interface Path {
  narrow(request: NarrowFlagsRequest): Promise<number>;
  star(messages: number[], op: 'add' | 'remove'): Promise<number>;
}

/** Every case's rounds, then the starring rounds (added, then removed again), on one path. */
async function measurePath(name: string, repeats: number, dataset: Requests, path: Path, measured: Results): Promise<void> {
  for (const { name: narrowName, narrow } of cases(dataset)) {
    measured.push({ path: name, name: narrowName, result: await measure(repeats, (round) => path.narrow(narrowRequest(dataset, narrow, round))) });
  }
  measured.push({ path: name, name: STARRED, result: await measure(repeats, (round) => path.star(idsOf(dataset, Math.floor(round / 2)), round % 2 === 0 ? 'add' : 'remove')) });
}

const storeConfig = (dataDir: string) => ({ ...loadConfig({}), dataDir, mode: 'production' as const });

/** Builds the dataset into `dataDir` and measures at the realm actor, in this process. */
async function measureActor(options: FlagsOptions, dataDir: string, measured: Results): Promise<{ dataset: Requests; realmId: number; setupSeconds: number }> {
  const config = storeConfig(dataDir);
  const store = openStore(config);
  const realms = new Realms(store, config, new EventQueues(store));
  const setupStart = performance.now();
  const dataset = await buildDataset(realms, { ...options, perUser: Math.max(1, Math.floor(options.channels / 2)) }, 'Flags');
  const { realm } = dataset;
  const setupSeconds = (performance.now() - setupStart) / 1000;
  await measurePath('actor', options.repeats, dataset, {
    narrow: async (request) => (await realm.ask('flags.updateNarrow', dataset.ownerId, request)).updated_count,
    star: async (messages, op) => (await realm.ask('flags.update', dataset.ownerId, { messages, op, flag: 'starred' })).messages.length,
  }, measured);
  await realms.idle();
  await store.close();
  const { ownerId, ownerEmail, apiKey, messageIds, channelNames } = dataset;
  return { dataset: { ownerId, ownerEmail, apiKey, messageIds, channelNames }, realmId: realm.realm.id, setupSeconds };
}

/** Zulip's model loaded from the data directory once Parley's rounds are done (or why it could not
 * be): every case's rounds come in pairs that put the flags back, so it starts with the flags they
 * started with, and PostgreSQL (its load, its checkpoints) does not run beside Parley's server. */
async function loadZulipModel(dataDir: string, realmId: number): Promise<ZulipFlagsModel | string> {
  const store = openStore(storeConfig(dataDir));
  try {
    return await startZulipFlagsModel(store, realmId);
  } finally {
    await store.close();
  }
}

/** Measures through HTTP against a server started on the dataset, with a lean client (one
 * kept-alive connection, requests written by hand: lib/leanClient.ts), so that the latencies are
 * the server's as far as a client can make them. */
async function measureHttp(options: FlagsOptions, dataDir: string, dataset: Requests, measured: Results): Promise<void> {
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production' });
  const client = await LeanClient.open(server.baseUrl, dataset.ownerEmail, dataset.apiKey);
  const post = async (path: string, params: Record<string, unknown>) => {
    const response = await client.post(path, formEncode(params));
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
    return response.body;
  };
  try {
    await measurePath('HTTP', options.repeats, dataset, {
      narrow: async (request) => {
        const answer = await post('/messages/flags/narrow', {
          anchor: String(request.anchor),
          num_before: request.numBefore,
          num_after: request.numAfter,
          narrow: request.narrow,
          op: request.op,
          flag: request.flag,
        });
        return Number(answer.updated_count);
      },
      star: async (messages, op) => ((await post('/messages/flags', { messages, op, flag: 'starred' })).messages as number[]).length,
    }, measured);
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

/** Measures Zulip's model, on its one connection to PostgreSQL from this process. The starring
 * rounds count the IDs sent, as Parley's answer (and Zulip's) lists them. */
async function measureZulipModel(options: FlagsOptions, dataset: Requests, model: ZulipFlagsModel, measured: Results): Promise<void> {
  await measurePath('Zulip model', options.repeats, dataset, {
    narrow: (request) => model.updateForNarrow(dataset.ownerId, request),
    star: async (messages, op) => {
      await model.updateFlags(dataset.ownerId, messages, op, 'starred');
      return messages.length;
    },
  }, measured);
}

/** The column of the Zulip model's rows: its p50 over Parley's through HTTP, for the same case. */
const RATIO = '× HTTP p50';

/** Where the model changed another number of flags than Parley's server in the same rounds. */
function mismatches(measured: Results): string[] {
  const http = new Map(measured.filter((entry) => entry.path === 'HTTP').map((entry) => [entry.name, entry.result.updated]));
  return measured
    .filter((entry) => entry.path === 'Zulip model' && entry.name !== STARRED && entry.result.updated !== http.get(entry.name))
    .map((entry) => `${entry.name}: Zulip model ${entry.result.updated}, Parley ${http.get(entry.name)}`);
}

export async function runFlags(options: FlagsOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-flags-'));
  try {
    const measured: Results = [];
    const { dataset, realmId, setupSeconds } = await measureActor(options, dataDir, measured);
    await measureHttp(options, dataDir, dataset, measured);
    const model = await loadZulipModel(dataDir, realmId);
    const notes: string[] = [];
    try {
      if (typeof model === 'string') console.log(`Zulip model: ${model}; its column is skipped`);
      else {
        await measureZulipModel(options, dataset, model, measured);
        const differing = mismatches(measured);
        notes.push(
          `Zulip model: PostgreSQL ${model.version} (${Object.entries(model.settings).map(([name, value]) => `${name} ${value}`).join(', ')}), ${model.userMessages.toLocaleString('en')} rows of zerver_usermessage loaded and indexed in ${model.loadSeconds.toFixed(0)} s; ${RATIO}: its p50 over Parley's through HTTP.`,
          differing.length === 0 ? 'Flags changed: the same in every case as Parley\'s through HTTP.' : `Flags changed, differing from Parley's: ${differing.join('; ')}.`,
        );
      }
    } finally {
      if (typeof model !== 'string') await model.stop();
    }
    const httpP50 = new Map(measured.filter((entry) => entry.path === 'HTTP').map((entry) => [entry.name, percentile(entry.result.latencies, 50)]));
    const rows = measured.map(({ path, name, result }) => {
      const values = row(path, name, result);
      if (typeof model === 'string') return values;
      return { ...values, [RATIO]: path === 'Zulip model' ? (values['p50 ms'] as number) / httpP50.get(name)! : '-' };
    });
    printTable(`narrow flags: ${options.messages} messages, ${options.users} users, ${options.channels} channels, ${options.repeats} repeats (setup ${setupSeconds.toFixed(1)} s)`, rows);
    for (const note of notes) console.log(note);
    // Each path's latency distributions, one line per case.
    const paths = [...new Set(measured.map((entry) => entry.path))];
    const titles: Record<string, string> = { actor: 'realm actor', HTTP: 'HTTP API', 'Zulip model': "Zulip model (PostgreSQL)" };
    const charts = paths.map((path) =>
      latencyChart(
        `narrow flags at the ${titles[path]}: latency by percentile`,
        measured.filter((entry) => entry.path === path).map(({ name, result }) => ({ name, latencies: result.latencies })),
      ),
    );
    const zulipModel = typeof model === 'string' ? { skipped: model } : { version: model.version, settings: model.settings, load_seconds: model.loadSeconds, user_messages: model.userMessages };
    console.log(`results: ${writeResult(options.quick ? 'flags-quick' : 'flags', { options, setup_seconds: setupSeconds, zulip_model: zulipModel, rows }, { charts, notes })}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
