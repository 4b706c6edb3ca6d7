// Realms benchmark (issue #35: messages a second should scale with realm threads for many realms):
// `realms` realms, each with its own channel of `subscribers` users holding event queues and its own
// kept-alive connections (`senders` in all, shared evenly) sending short messages as fast as answers
// come, against a server whose realms run on 1, 2 (and, with 6 cores or more, 4) realm threads
// (PARLEY_REALM_THREADS, each a shard of the data directory, the realms placed as the management
// CLI places them), behind PARLEY_THREADS=2's one front. Each figure is the rounds' median
// (`--rounds`), the rounds alternating which setup goes first. Beside the rate: the server's CPU a
// message, its main thread's (the front), the realm threads' together, and how busy the busiest
// realm thread was (its CPU seconds a second): with one realm thread it holds every realm, with more
// each holds its shard's, and the busiest one's share is what bounds the realms' rate on a machine
// with a core for each thread. On a 2-core machine shared with the load generator the rate cannot
// grow; the split of the realm threads' work shows.
import { availableParallelism } from 'node:os';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ApiClient, formEncode } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { shortMessage } from './render.js';
import { buildChannelRealms, type Member } from './lib/dataset.js';
import { cpuSeconds, percentile, pool, printTable, threadCpuSeconds, threadsNamed, writeResult, type Row } from './lib/stats.js';
import { REALM_THREAD_NAME } from '../src/threads/protocol.js';
import { flatOut, summary } from './send.js';

export interface RealmsOptions {
  realms: number;
  /** Subscribers of each realm's channel, each with an event queue (the sender is one). */
  subscribers: number;
  /** Connections sending at once, over all realms. */
  senders: number;
  seconds: number;
  rounds: number;
  quick: boolean;
}

interface BuiltRealm {
  subdomain: string;
  owner: Member;
  members: Member[];
}

const hostOf = (realm: BuiltRealm) => `${realm.subdomain}.localhost`;

/** Every realm's senders at once for `seconds`: one row of figures. */
async function sendToAll(baseUrl: string, pid: number, realmThreads: number[], realms: readonly BuiltRealm[], connections: number, seconds: number): Promise<Row> {
  const body = formEncode({ type: 'stream', to: 'realms', topic: 'bench', content: shortMessage });
  const cpuBefore = cpuSeconds(pid);
  const mainBefore = threadCpuSeconds(pid);
  const realmBefore = realmThreads.map((thread) => threadCpuSeconds(pid, thread));
  const started = performance.now();
  const sent = await Promise.all(realms.map((realm) => flatOut(baseUrl, realm.owner, body, { connections, seconds }, hostOf(realm))));
  const wall = (performance.now() - started) / 1000;
  const realmCpu = realmThreads.map((thread, index) => threadCpuSeconds(pid, thread) - realmBefore[index]!);
  const latencies = sent.flatMap((one) => one.latencies);
  const failures = sent.reduce((total, one) => total + one.failures, 0);
  if (failures > 0) throw new Error(`${failures} requests failed or answered other than 2xx`);
  const perMessage = (cpu: number) => (cpu * 1e6) / latencies.length;
  return {
    messages: latencies.length,
    'messages/s': latencies.length / wall,
    'p50 ms': percentile(latencies, 50),
    'p99 ms': percentile(latencies, 99),
    'server CPU µs/message': perMessage(cpuSeconds(pid) - cpuBefore),
    'main thread CPU µs/message': perMessage(threadCpuSeconds(pid) - mainBefore),
    'realm threads CPU µs/message': perMessage(realmCpu.reduce((total, cpu) => total + cpu, 0)),
    // What bounds the realms' rate with a core for each thread: the busiest realm thread's load.
    'busiest realm thread busy %': (100 * Math.max(...realmCpu)) / wall,
  };
}

/** A round's server on a copy of the template for `realmThreads`: every member's queue
 * registered, a warm-up, then the load. */
async function measureServer(template: string, copy: string, realmThreads: number, realms: readonly BuiltRealm[], options: RealmsOptions): Promise<Row> {
  cpSync(template, copy, { recursive: true });
  const server = await spawnServer({ PARLEY_DATA_DIR: copy, PARLEY_MODE: 'production', PARLEY_THREADS: '2', PARLEY_REALM_THREADS: String(realmThreads) });
  try {
    const everyone = realms.flatMap((realm) => [realm.owner, ...realm.members].map((member) => ({ member, host: hostOf(realm) })));
    await pool(everyone, 20, async ({ member, host }) => {
      const registered = await new ApiClient(server.baseUrl, member, host).post('/register', { event_types: ['message'] });
      if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
    });
    const pid = server.child.pid!;
    const threads = threadsNamed(pid, (name) => name === REALM_THREAD_NAME || name.startsWith(`${REALM_THREAD_NAME}-`));
    if (threads.length !== realmThreads) throw new Error(`${threads.length} realm threads found, ${realmThreads} asked`);
    const connections = Math.max(1, Math.round(options.senders / realms.length));
    await sendToAll(server.baseUrl, pid, threads, realms, 1, 1);
    return await sendToAll(server.baseUrl, pid, threads, realms, connections, options.seconds);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(copy, { recursive: true, force: true });
  }
}

export async function runRealms(options: RealmsOptions): Promise<void> {
  if (!Number.isInteger(options.rounds) || options.rounds < 1) throw new Error(`--rounds must be a whole number of at least 1, not ${options.rounds}`);
  const setups = availableParallelism() >= 6 ? [1, 2, 4] : [1, 2];
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-realms-'));
  try {
    // A template for each setup, the same realms placed over its shards (each with its own keys).
    const templates = new Map<number, { dir: string; realms: BuiltRealm[] }>();
    for (const shards of setups) {
      const dir = join(dataDir, `template-${shards}`);
      templates.set(shards, { dir, realms: await buildChannelRealms(dir, shards, options.realms, options.subscribers - 1, 'realms') });
    }
    const byThreads = new Map<number, Row[]>(setups.map((threads) => [threads, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const threads of round % 2 === 0 ? setups : [...setups].reverse()) {
        const { dir, realms } = templates.get(threads)!;
        byThreads.get(threads)!.push(await measureServer(dir, join(dataDir, `round-${round}-${threads}`), threads, realms, options));
      }
    }
    const rows = [...byThreads].map(([threads, rounds]) => ({ 'realm threads': threads, realms: options.realms, senders: options.senders, ...summary(rounds) }));
    printTable(`realms: ${options.realms} realms, each a channel of ${options.subscribers} subscribers with event queues, ${options.senders} senders in all, PARLEY_THREADS=2 (median of ${options.rounds} round${options.rounds === 1 ? '' : 's'})`, rows);
    console.log(`results: ${writeResult(options.quick ? 'realms-quick' : 'realms', { options, rows })}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
