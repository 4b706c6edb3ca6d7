// Fan-out benchmark: N WebSocket clients, each its own user with its own event queue, all
// subscribed to one channel; one message is sent and the time until the last client has it is
// measured, over repeats. The server runs as its own process on loopback; the dataset is built
// directly into its data directory first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { spawnServer } from '../test/helpers/process.js';
import { ApiClient } from '../test/helpers/client.js';
import { SenderThread } from './lib/senderThread.js';
import { buildChannelRealm, type Member } from './lib/dataset.js';
import { cpuSeconds, latencyChart, percentile, pool, printTable, rssBytes, writeResult } from './lib/stats.js';

export interface FanoutOptions {
  clients: number;
  repeats: number;
  /** Everything must be done by then (a bound, not a target). */
  timeoutMs: number;
}

/** A client that only watches for one marker per round, without parsing frames. */
export class Watcher {
  received = new Map<string, number>();
  /** The close code and reason, once the socket has closed. */
  closed: string | undefined;

  constructor(readonly socket: WebSocket) {
    socket.on('close', (code, reason) => (this.closed = `${code} ${reason.toString()}`.trim()));
  }

  /** Resolves when the marker arrives. */
  watch(marker: string): Promise<void> {
    const bytes = Buffer.from(marker);
    return new Promise((resolve) => {
      const listener = (data: Buffer): void => {
        if (!data.includes(bytes)) return;
        this.received.set(marker, performance.now());
        this.socket.off('message', listener);
        resolve();
      };
      this.socket.on('message', listener);
    });
  }
}

/** Resolves once every watcher has the marker; rejects after `timeoutMs` saying how many have not
 * and how the sockets of those that closed did (a lost delivery fails the run instead of hanging it). */
export function delivered(watchers: readonly Watcher[], marker: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const missing = watchers.filter((watcher) => !watcher.received.has(marker));
      const closed = missing.flatMap((watcher) => (watcher.closed === undefined ? [] : [watcher.closed]));
      reject(new Error(`${missing.length} of ${watchers.length} clients did not receive ${marker} within ${timeoutMs} ms (sockets closed: ${closed.length > 0 ? closed.join('; ') : 'none'})`));
    }, timeoutMs);
  });
  return Promise.race([Promise.all(watchers.map((watcher) => watcher.watch(marker))).then(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** A client's socket that closed before the server answered its attach. */
class ClosedBeforeAttached extends Error {}

/** Attempts at a client's connection: one whose socket closes before it is attached (seen once in
 * a while on a cluster's gateway under CI's load, code 1006) is made again, and said on stderr; a
 * socket that closes later fails its round (`delivered`). */
const CONNECT_ATTEMPTS = 3;

export async function connect(baseUrl: string, member: Member): Promise<Watcher> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attach(baseUrl, member);
    } catch (error) {
      if (!(error instanceof ClosedBeforeAttached) || attempt === CONNECT_ATTEMPTS) throw error;
      console.error(`fan-out: ${member.email}: ${error.message}; connecting again`);
    }
  }
}

/** Registers a queue for the member and attaches a socket to it. */
async function attach(baseUrl: string, member: Member): Promise<Watcher> {
  const client = new ApiClient(baseUrl, member);
  const registered = await client.post('/register', { event_types: ['message'], client_gravatar: true, apply_markdown: true });
  if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/api/v1/events/socket`, { headers: client.authHeader(), perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      socket.send(JSON.stringify({ op: 'attach', queue_id: registered.body.queue_id, last_event_id: -1 }));
      socket.once('message', () => resolve());
    });
    socket.once('error', reject);
    socket.once('close', (code, reason) => reject(new ClosedBeforeAttached(`the socket closed before it was attached: ${code} ${reason.toString()}`.trim())));
  });
  return new Watcher(socket);
}

export async function runFanout(options: FanoutOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const remaining = (): number => Math.max(1, deadline - Date.now());
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-fanout-'));
  try {
    const setupStart = performance.now();
    const { owner, members } = await buildChannelRealm(dataDir, options.clients, 'fanout');
    const setupMs = performance.now() - setupStart;
    const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production' });
    try {
      const pid = server.child.pid!;
      const idleRss = rssBytes(pid);
      // The sender posts and times its replies on a thread of its own (see senderThread.ts).
      const sender = new SenderThread(server.baseUrl, owner);
      const connectStart = performance.now();
      const watchers = await pool(members, 200, (member) => connect(server.baseUrl, member));
      const connectMs = performance.now() - connectStart;
      const connectedRss = rssBytes(pid);

      const lastDelivery: number[] = [];
      const deliveries: number[] = [];
      // The reply is sent after the commit, once the events are in every queue; the sockets are
      // written on the next turn of the event loop, while the reply is on its way.
      const replies: number[] = [];
      const cpuBefore = cpuSeconds(pid);
      for (let round = 0; round < options.repeats; round++) {
        const marker = `fanout-round-${round}-${Math.random().toString(36).slice(2)}`;
        const allReceived = delivered(watchers, marker, remaining());
        const sentAt = performance.now();
        const response = await sender.call('POST', '/messages', { type: 'stream', to: 'fanout', topic: 'bench', content: marker });
        if (response.status !== 200) throw new Error(`send failed: ${JSON.stringify(response.body)}`);
        replies.push(response.ms);
        await allReceived;
        const times = watchers.map((watcher) => watcher.received.get(marker)! - sentAt);
        lastDelivery.push(Math.max(...times));
        deliveries.push(...times);
      }
      // The server's CPU time over the rounds (the send, its rows and events, every socket write),
      // per delivery.
      const cpuPerDelivery = (cpuSeconds(pid) - cpuBefore) / (options.clients * options.repeats);
      for (const watcher of watchers) watcher.socket.terminate();
      await sender.close();

      const result = {
        clients: options.clients,
        repeats: options.repeats,
        last_delivery_ms: { p50: percentile(lastDelivery, 50), p99: percentile(lastDelivery, 99), max: Math.max(...lastDelivery) },
        each_delivery_ms: { p50: percentile(deliveries, 50), p99: percentile(deliveries, 99) },
        post_reply_ms: { p50: percentile(replies, 50), p99: percentile(replies, 99) },
        deliveries_per_second: options.clients / (percentile(lastDelivery, 50) / 1000),
        server_cpu_us_per_delivery: cpuPerDelivery * 1e6,
        server_bytes_per_socket: (connectedRss - idleRss) / options.clients,
        setup_ms: setupMs,
        connect_ms: connectMs,
      };
      printTable(`fan-out: one message to ${options.clients} WebSocket clients, ${options.repeats} repeats`, [
        { measure: 'POST → last delivery p50 (ms)', value: result.last_delivery_ms.p50 },
        { measure: 'POST → last delivery p99 (ms)', value: result.last_delivery_ms.p99 },
        { measure: 'POST → each delivery p50 (ms)', value: result.each_delivery_ms.p50 },
        { measure: 'POST → each delivery p99 (ms)', value: result.each_delivery_ms.p99 },
        { measure: 'POST reply p50 (ms)', value: result.post_reply_ms.p50 },
        { measure: 'POST reply p99 (ms)', value: result.post_reply_ms.p99 },
        { measure: 'deliveries per second (at p50)', value: Math.round(result.deliveries_per_second) },
        { measure: 'server CPU per delivery (µs)', value: result.server_cpu_us_per_delivery },
        { measure: 'server memory per socket+queue (KiB)', value: result.server_bytes_per_socket / 1024 },
        { measure: 'register+connect all clients (s)', value: connectMs / 1000 },
      ]);
      const distributions = latencyChart(`fan-out to ${options.clients} WebSocket clients: latency by percentile`, [
        { name: 'POST → each delivery', latencies: deliveries },
        { name: 'POST → last delivery', latencies: lastDelivery },
        { name: 'POST reply', latencies: replies },
      ]);
      console.log(`results: ${writeResult(options.clients === 10_000 ? 'fanout' : `fanout-${options.clients}`, result, { charts: [distributions] })}`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
