// Narrow-flag benchmark (issue: messages and flags): a realm of 100 users and 50 channels with
// 200,000 messages (each user in 25 channels, the bench user in all, half of its messages unread);
// marks 5,000-message windows read and unread by narrow, at the realm actor and through HTTP, and
// updates flags on 1,000 message IDs. The dataset is built straight into a data directory
// (lib/dataset.ts: each user in half of the channels, the bench user in all).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { EventQueues } from '../src/events/queues.js';
import type { RawTerm } from '../src/messages/narrow.js';
import { Realms } from '../src/realm/registry.js';
import { ApiClient } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { buildDataset, type Dataset } from './lib/dataset.js';
import { latencyChart, percentile, printTable, writeResult, type Row } from './lib/stats.js';

export interface FlagsOptions {
  users: number;
  channels: number;
  messages: number;
  repeats: number;
  quick: boolean;
}

const WINDOW = 5000;

type Case = { name: string; narrow: RawTerm[] };

/** What the HTTP rounds need of the dataset (the actor's realm, store and caches are let go first,
 * so the bench process's own garbage collection does not land in the HTTP figures). */
type Requests = Pick<Dataset, 'ownerEmail' | 'apiKey' | 'messageIds' | 'channelNames'>;

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
 * the JIT compiles the path (the first case measured would otherwise pay for it). */
const WARM_UP = 10;

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
function narrowRequest(dataset: Requests, narrow: RawTerm[], round: number) {
  const windows = Math.max(1, Math.floor(dataset.messageIds.length / WINDOW));
  const anchor = dataset.messageIds[(Math.floor(round / 2) % windows) * WINDOW]!;
  const op = round % 2 === 0 ? ('add' as const) : ('remove' as const);
  const terms = op === 'add' ? narrow : narrow.filter((term) => !Array.isArray(term) || term[0] !== 'is' || term[1] !== 'unread');
  return { anchor, numBefore: 0, numAfter: WINDOW - 1, includeAnchor: true, narrow: terms, op, flag: 'read' };
}

type Results = { path: string; name: string; result: Measured }[];

/** The 1,000 message IDs of a round of POST /messages/flags. */
const idsOf = (dataset: Requests, round: number) => dataset.messageIds.slice((round * 1000) % Math.max(1, dataset.messageIds.length - 1000)).slice(0, 1000);

/** Builds the dataset into `dataDir` and measures at the realm actor, in this process. */
async function measureActor(options: FlagsOptions, dataDir: string, measured: Results): Promise<{ dataset: Requests; setupSeconds: number }> {
  const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
  const store = openStore(config);
  const realms = new Realms(store, config, new EventQueues(store));
  const setupStart = performance.now();
  const dataset = await buildDataset(realms, { ...options, perUser: Math.max(1, Math.floor(options.channels / 2)) }, 'Flags');
  const { realm } = dataset;
  const setupSeconds = (performance.now() - setupStart) / 1000;
  for (const { name, narrow } of cases(dataset)) {
    const result = await measure(options.repeats, async (round) => {
      const answer = await realm.ask('flags.updateNarrow', dataset.ownerId, narrowRequest(dataset, narrow, round));
      return answer.updated_count;
    });
    measured.push({ path: 'actor', name, result });
  }
  measured.push({
    path: 'actor',
    name: 'POST /messages/flags, 1,000 IDs',
    result: await measure(options.repeats, async (round) => {
      const answer = await realm.ask('flags.update', dataset.ownerId, { messages: idsOf(dataset, Math.floor(round / 2)), op: round % 2 === 0 ? 'add' : 'remove', flag: 'starred' });
      return answer.messages.length;
    }),
  });
  await realms.idle();
  await store.close();
  const { ownerEmail, apiKey, messageIds, channelNames } = dataset;
  return { dataset: { ownerEmail, apiKey, messageIds, channelNames }, setupSeconds };
}

/** Measures through HTTP against a server started on the dataset. */
async function measureHttp(options: FlagsOptions, dataDir: string, dataset: Requests, measured: Results): Promise<void> {
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production' });
  try {
    const client = new ApiClient(server.baseUrl, { email: dataset.ownerEmail, apiKey: dataset.apiKey }).keptAlive();
    for (const { name, narrow } of cases(dataset)) {
      const result = await measure(options.repeats, async (round) => {
        const request = narrowRequest(dataset, narrow, round);
        const response = await client.post('/messages/flags/narrow', {
          anchor: String(request.anchor),
          num_before: request.numBefore,
          num_after: request.numAfter,
          narrow: request.narrow,
          op: request.op,
          flag: request.flag,
        });
        if (response.status !== 200) throw new Error(JSON.stringify(response.body));
        return Number(response.body.updated_count);
      });
      measured.push({ path: 'HTTP', name, result });
    }
    measured.push({
      path: 'HTTP',
      name: 'POST /messages/flags, 1,000 IDs',
      result: await measure(options.repeats, async (round) => {
        const response = await client.post('/messages/flags', { messages: idsOf(dataset, Math.floor(round / 2)), op: round % 2 === 0 ? 'add' : 'remove', flag: 'starred' });
        return (response.body.messages as number[]).length;
      }),
    });
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

export async function runFlags(options: FlagsOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-flags-'));
  try {
    const measured: Results = [];
    const { dataset, setupSeconds } = await measureActor(options, dataDir, measured);
    await measureHttp(options, dataDir, dataset, measured);
    const rows = measured.map(({ path, name, result }) => row(path, name, result));
    printTable(`narrow flags: ${options.messages} messages, ${options.users} users, ${options.channels} channels, ${options.repeats} repeats (setup ${setupSeconds.toFixed(1)} s)`, rows);
    // Each path's latency distributions, one line per case.
    const charts = ['actor', 'HTTP'].map((path) =>
      latencyChart(
        `narrow flags at the ${path === 'actor' ? 'realm actor' : 'HTTP API'}: latency by percentile`,
        measured.filter((entry) => entry.path === path).map(({ name, result }) => ({ name, latencies: result.latencies })),
      ),
    );
    console.log(`results: ${writeResult(options.quick ? 'flags-quick' : 'flags', { options, setup_seconds: setupSeconds, rows }, { charts })}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
