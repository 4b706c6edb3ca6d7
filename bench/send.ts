// Send benchmark: POST /messages through HTTP on loopback against a server it starts, to a channel
// of `subscribers` users (the sender among them), each holding an event queue. One connection
// sending one message at a time (a short chat line, and a long message with code and math:
// render.ts's two) gives the latency of a send; `senders` kept-alive connections sending at once
// give messages per second (group commit), and the same connections offering 1,500 messages a
// second together give what a message costs below saturation. Every load is autocannon's for `seconds`, with each
// response's latency taken as it comes (fractions of a millisecond), and the server's CPU time per
// message: all its threads, the main thread, the realm thread alone, the I/O threads (each its own clock,
// /proc/<pid>/task/<tid>). Each load runs against a server of one thread (PARLEY_THREADS=1: the
// realms on the main thread, which serves HTTP too), one of two (the realms on a thread of their
// own) and one of three (an I/O thread serving clients beside the main one, on the same port),
// from copies of one data directory, in rounds (`--rounds`, 3; `--quick`: 1) that
// alternate which goes first: each figure is the rounds' median, with the CPU figures' range (a
// machine shared with the load generator, and with other guests, moves them by a quarter).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { ApiClient, formEncode } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { longMessage, shortMessage } from './render.js';
import { buildChannelRealm, type Member } from './lib/dataset.js';
import { LeanClient } from './lib/leanClient.js';
import { arrivals } from './load/schedule.js';
import { cpuSeconds, percentile, pool, printTable, threadCpuSeconds, threadNamed, threadsNamed, writeResult, type Row } from './lib/stats.js';
import { IO_THREAD_NAME, REALM_THREAD_NAME } from '../src/threads/protocol.js';

/** The setups measured unless `--threads` says otherwise: PARLEY_THREADS of each. */
export const SEND_SETUPS = [1, 2, 3];

export interface SendOptions {
  /** Subscribers of the channel, each with an event queue (the sender is one). */
  subscribers: number;
  /** Connections sending at once. */
  senders: number;
  /** How long each load sends. */
  seconds: number;
  /** How many times every load runs against each setup (a fresh server each time). */
  rounds: number;
  /** The setups measured: PARLEY_THREADS of each. */
  threads: readonly number[];
  quick: boolean;
}

/** A load: `connections` kept-alive connections sending for `seconds`. */
interface Load {
  name: string;
  content: string;
  connections: number;
  seconds: number;
  /** Messages a second the connections offer together (else as fast as answers come). */
  rate?: number;
}

/** The rate of the paced load: about half of what this machine's slower setup takes at saturation. */
const OFFERED_RATE = 1500;

/** The server's threads whose CPU is measured: the main thread, the one the realms run on, and the
 * I/O threads. */
interface Threads {
  pid: number;
  realms: number;
  io: number[];
}

/** What a load did: each answered message's latency (ms), and the requests that failed. */
export interface Sent {
  latencies: number[];
  failures: number;
}

/** As many requests as the connections can make for the load's seconds (autocannon), to the realm
 * `host` names (else the default realm). */
export async function flatOut(baseUrl: string, sender: Member, body: string, load: Pick<Load, 'connections' | 'seconds'>, host?: string): Promise<Sent> {
  const latencies: number[] = [];
  const result = await autocannon({
    url: `${baseUrl}/api/v1/messages`,
    method: 'POST',
    headers: { ...new ApiClient(baseUrl, sender, host).identity(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
    connections: load.connections,
    pipelining: 1,
    duration: load.seconds,
    setupClient: (client) => client.on('response', (statusCode: number, _bytes: number, responseTime: number) => statusCode === 200 && latencies.push(responseTime)),
  });
  return { latencies, failures: result.non2xx + result.errors };
}

/** `rate` requests a second, evenly spaced (the load tool's schedule of arrivals), on the load's
 * connections (autocannon's rate sends each second's quota at once, at saturation's pace): each
 * latency counts from when the request was due, so a wait for a free connection is in it. */
async function paced(baseUrl: string, sender: Member, body: string, load: Load, rate: number): Promise<Sent> {
  const clients = await Promise.all(Array.from({ length: load.connections }, () => LeanClient.open(baseUrl, sender.email, sender.apiKey)));
  const idle = [...clients];
  const overdue: number[] = [];
  const sent: Sent = { latencies: [], failures: 0 };
  const sendOn = (client: LeanClient, dueAt: number): void => {
    const answered = (ok: boolean): void => {
      if (ok) sent.latencies.push(performance.now() - dueAt);
      else sent.failures++;
    };
    client.post('/messages', body).then((response) => answered(response.status === 200), () => answered(false)).finally(() => {
      const next = overdue.shift();
      if (next === undefined) idle.push(client);
      else sendOn(client, next);
    });
  };
  const due = arrivals(rate, { rampUpS: 0, steadyS: load.seconds, rampDownS: 0 });
  const start = performance.now();
  for (const at of due) {
    const dueAt = start + at;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const client = idle.pop();
    if (client) sendOn(client, dueAt);
    else overdue.push(dueAt);
  }
  while (idle.length < clients.length) await new Promise((resolve) => setTimeout(resolve, 5));
  for (const client of clients) client.close();
  return sent;
}

async function send(baseUrl: string, sender: Member, { pid, realms, io }: Threads, load: Load): Promise<Row> {
  const ioCpuSeconds = () => io.reduce((total, thread) => total + threadCpuSeconds(pid, thread), 0);
  const body = formEncode({ type: 'stream', to: 'send', topic: 'bench', content: load.content });
  const cpuBefore = cpuSeconds(pid);
  const mainBefore = threadCpuSeconds(pid);
  const realmBefore = threadCpuSeconds(pid, realms);
  const ioBefore = ioCpuSeconds();
  const started = performance.now();
  const { latencies, failures } = load.rate === undefined ? await flatOut(baseUrl, sender, body, load) : await paced(baseUrl, sender, body, load, load.rate);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  const mainCpu = threadCpuSeconds(pid) - mainBefore;
  const realmCpu = threadCpuSeconds(pid, realms) - realmBefore;
  const ioCpu = ioCpuSeconds() - ioBefore;
  if (failures > 0) throw new Error(`${load.name}: ${failures} requests failed or answered other than 2xx`);
  return {
    load: load.name,
    connections: load.connections,
    messages: latencies.length,
    'messages/s': latencies.length / seconds,
    'p50 ms': percentile(latencies, 50),
    'p99 ms': percentile(latencies, 99),
    'server CPU µs/message': (cpu * 1e6) / latencies.length,
    'main thread CPU µs/message': (mainCpu * 1e6) / latencies.length,
    // The threads serving clients beside the main one (PARLEY_THREADS above 2), together.
    'I/O threads CPU µs/message': (ioCpu * 1e6) / latencies.length,
    // The realms' thread (with one thread, the main thread): issue #35's ≤ 100 µs.
    'realm thread CPU µs/message': (realmCpu * 1e6) / latencies.length,
  };
}

/** A round's server: one data directory copy, `threads` threads, every member's queue registered;
 * answers each load's row (the warm-up's dropped). */
async function measureServer(template: string, copy: string, threads: number, realm: { owner: Member; members: Member[] }, loads: readonly Load[]): Promise<Row[]> {
  cpSync(template, copy, { recursive: true });
  const server = await spawnServer({ PARLEY_DATA_DIR: copy, PARLEY_MODE: 'production', PARLEY_THREADS: String(threads) });
  try {
    await pool([realm.owner, ...realm.members], 20, async (member) => {
      const registered = await new ApiClient(server.baseUrl, member).post('/register', { event_types: ['message'] });
      if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
    });
    const pid = server.child.pid!;
    const measured = { pid, realms: threadNamed(pid, REALM_THREAD_NAME) ?? pid, io: threadsNamed(pid, (name) => name.startsWith(IO_THREAD_NAME)) };
    const rows: Row[] = [];
    for (const load of [{ name: 'warm-up', content: shortMessage, connections: 1, seconds: 1 }, ...loads]) {
      const row = await send(server.baseUrl, realm.owner, measured, load);
      if (load.name !== 'warm-up') rows.push(row);
    }
    return rows;
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The figures a load's rounds are summed up by: the median of each, with the range of those the
 * issue's targets are (CPU per message). */
const RANGED = ['server CPU µs/message', 'realm thread CPU µs/message'];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summary(rounds: readonly Row[]): Row {
  const first = rounds[0]!;
  const row: Row = {};
  for (const [column, value] of Object.entries(first)) {
    if (typeof value !== 'number' || column === 'connections') {
      row[column] = value;
      continue;
    }
    const values = rounds.map((round) => round[column] as number);
    row[column] = median(values);
    if (RANGED.includes(column) && rounds.length > 1) row[`${column}, range`] = `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  }
  return row;
}

export async function runSend(options: SendOptions): Promise<void> {
  if (!Number.isInteger(options.rounds) || options.rounds < 1) throw new Error(`--rounds must be a whole number of at least 1, not ${options.rounds}`);
  if (options.threads.length === 0 || !options.threads.every((threads) => Number.isInteger(threads) && threads >= 1)) throw new Error(`--threads must list whole numbers of at least 1, not ${options.threads.join(',')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-send-'));
  try {
    const template = join(dataDir, 'template');
    const { owner, members } = await buildChannelRealm(template, options.subscribers - 1, 'send');
    const loads: Load[] = [
      { name: 'one at a time, short text', content: shortMessage, connections: 1, seconds: options.seconds },
      { name: 'one at a time, long with code and math', content: longMessage, connections: 1, seconds: options.seconds },
      { name: `${options.senders} senders at once, short text`, content: shortMessage, connections: options.senders, seconds: options.seconds },
      // Below either setup's limit, so both take every message: what each costs when messages share
      // fewer commits and wake-ups than at saturation.
      { name: `${options.senders} senders offering ${OFFERED_RATE.toLocaleString('en')}/s, short text`, content: shortMessage, connections: options.senders, seconds: options.seconds, rate: OFFERED_RATE },
    ];
    // Rounds alternate which setup goes first, so that a machine growing busier or quieter over
    // the run weighs on both alike.
    const setups = options.threads;
    const byThreads = new Map<number, Row[][]>(setups.map((threads) => [threads, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const threads of round % 2 === 0 ? setups : [...setups].reverse()) byThreads.get(threads)!.push(await measureServer(template, join(dataDir, `round-${round}-threads-${threads}`), threads, { owner, members }, loads));
    }
    const rows = [...byThreads].flatMap(([threads, rounds]) => loads.map((_, index) => ({ threads, ...summary(rounds.map((loadRows) => loadRows[index]!)) })));
    printTable(`send: POST /messages through HTTP to a channel of ${options.subscribers} subscribers, each with an event queue (median of ${options.rounds} round${options.rounds === 1 ? '' : 's'})`, rows);
    console.log(`results: ${writeResult(options.quick ? 'send-quick' : 'send', { options, rows })}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
