// Cluster benchmark (`npm run bench -- cluster`): clusters on loopback (one nats-server, Parley
// nodes as processes), measured against a standalone server under the same load.
// - send: POST /messages from concurrent senders spread over 1, 2 and 3 nodes, and standalone, after a
//   second of the same load unmeasured:
//   messages per second and latency — what the log append costs against a plain LMDB commit — to
//   the demo realm's Verona, and (standalone and one node) to a channel of 100 subscribers each
//   holding an event queue, as issue #35 measures a node's CPU against a standalone server's;
// - fan-out: one message to WebSocket clients spread over 1 or 2 gateway nodes, and standalone: the
//   last delivery, deliveries per second, and the sender's reply while the fan-out runs (timed on a
//   thread of its own);
// - failover: kill -9 of the realm's owner → the first successful write on another node, over rounds;
// - presence at takeover: a new owner reading a realm's presence from the bucket, for many users.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalCluster, type LocalCluster } from '../src/cli/localCluster.js';
import { openCluster } from '../src/cluster/connection.js';
import { presenceKeeper } from '../src/cluster/presence.js';
import { createLogger } from '../src/ops/log.js';
import { ApiClient } from '../test/helpers/client.js';
import { devClient } from '../test/helpers/operator.js';
import { spawnServer } from '../test/helpers/process.js';
import { connect, delivered, type Watcher } from './fanout.js';
import type { Member } from './lib/dataset.js';
import { SenderThread } from './lib/senderThread.js';
import { cpuSeconds, percentile, pool, printTable, writeResult, type Row } from './lib/stats.js';

export interface ClusterBenchOptions {
  /** How long each send measurement runs. */
  sendSeconds: number;
  senders: number;
  fanoutClients: number;
  fanoutRepeats: number;
  failoverRounds: number;
  /** Users whose presence the bucket holds when a realm is taken over. */
  presenceUsers: number;
  presenceRounds: number;
  quick: boolean;
}

const LEASE_MS = 2000;
/** How long each send load runs unmeasured first, as `http`'s do: a fresh process compiles the
 * send path (and a node its NATS client and encoders) in its first second, which a 2-second
 * measurement would count. */
const WARM_UP_SECONDS = 1;
/** How long a round of the fan-out may take before the run fails (a bound, not a target). */
const DELIVERY_TIMEOUT_MS = 30_000;

function cluster(nodes: number): Promise<LocalCluster> {
  return startLocalCluster({ nodes, env: { PARLEY_LEASE_MS: String(LEASE_MS), PARLEY_RATE_LIMITS: 'false' } });
}

/** A setup measured: a standalone server (`nodes` 0), or a cluster of that many nodes. */
interface Running {
  setup: string;
  baseUrls: string[];
  /** The processes whose CPU a write costs: Parley's (nodes, or the standalone server) and NATS's. */
  pids: { parley: number[]; nats: number[] };
  stop(): Promise<void>;
}

async function start(nodes: number, what: string): Promise<Running> {
  if (nodes > 0) {
    const running = await cluster(nodes);
    const pids = { parley: running.nodes.map((node) => node.child.pid!), nats: running.nats.map((server) => server.child.pid!) };
    return { setup: `cluster, ${nodes} ${what}${nodes > 1 ? 's' : ''}`, baseUrls: running.nodes.map((node) => node.baseUrl), pids, stop: () => running.stop() };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-standalone-'));
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  return {
    setup: 'standalone',
    baseUrls: [server.baseUrl],
    pids: { parley: [server.child.pid!], nats: [] },
    async stop() {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `measure` against each setup in turn, one at a time. */
async function each(setups: readonly number[], what: string, measure: (running: Running) => Promise<Row>): Promise<Row[]> {
  const rows: Row[] = [];
  for (const nodes of setups) {
    const running = await start(nodes, what);
    try {
      rows.push({ setup: running.setup, ...(await measure(running)) });
    } finally {
      await running.stop();
    }
  }
  return rows;
}

const cpuOf = (pids: number[]): number => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

/** Senders spread over the base URLs, each sending one message after another to channel `to` for
 * `seconds`; with the CPU the setup's processes spent per message (Parley's, and NATS's share). */
async function sendLoad({ baseUrls, pids }: Running, senders: number, seconds: number, to: string): Promise<Row> {
  const clients = await Promise.all(Array.from({ length: senders }, (_, index) => devClient(baseUrls[index % baseUrls.length]!, ['iago@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com', 'cordelia@zulip.com'][index % 4]!)));
  const load = async (forSeconds: number): Promise<{ latencies: number[]; failures: number }> => {
    const latencies: number[] = [];
    let failures = 0;
    const end = performance.now() + forSeconds * 1000;
    await Promise.all(
      clients.map(async (client, index) => {
        for (let serial = 0; performance.now() < end; serial++) {
          const started = performance.now();
          const response = await client.post('/messages', { type: 'stream', to, topic: `bench ${index}`, content: `message ${serial}` });
          if (response.status === 200) latencies.push(performance.now() - started);
          else failures++;
        }
      }),
    );
    return { latencies, failures };
  };
  await load(WARM_UP_SECONDS);
  const [parleyBefore, natsBefore] = [cpuOf(pids.parley), cpuOf(pids.nats)];
  const { latencies, failures } = await load(seconds);
  const perMessage = (before: number, now: number) => ((now - before) * 1e6) / latencies.length;
  return {
    'messages/s': latencies.length / seconds,
    'p50 ms': percentile(latencies, 50),
    'p99 ms': percentile(latencies, 99),
    failures,
    'Parley CPU µs/message': perMessage(parleyBefore, cpuOf(pids.parley)),
    'NATS CPU µs/message': perMessage(natsBefore, cpuOf(pids.nats)),
  };
}

/** The channel of the measure: this many subscribers (the owner among them), each holding
 * an event queue, sent to by this many senders at once. */
const QUEUED_SUBSCRIBERS = 100;
const QUEUED_SENDERS = 64;

/** A channel of QUEUED_SUBSCRIBERS: the demo realm's owner and new members, each registering a
 * queue for messages. */
async function channelOfQueues(baseUrl: string): Promise<string> {
  const owner = await devClient(baseUrl, 'iago@zulip.com');
  const members = await newMembers(owner, 'queued', 'member', QUEUED_SUBSCRIBERS - 1);
  await subscribe(owner, 'queued', []);
  await pool([owner, ...members.map((member) => new ApiClient(baseUrl, member))], 20, async (client) => {
    const registered = await client.post('/register', { event_types: ['message'] });
    if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
  });
  return 'queued';
}

/** Each setup's send rows, with its CPU (Parley's and NATS's) against standalone's to the same channel. */
function againstStandalone(rows: Row[]): Row[] {
  const cpu = (row: Row) => (row['Parley CPU µs/message'] as number) + (row['NATS CPU µs/message'] as number);
  return rows.map((row) => ({ ...row, 'CPU × standalone': cpu(row) / cpu(rows[0]!) }));
}

async function benchSend(options: ClusterBenchOptions): Promise<Row[]> {
  const demo = await each([0, 1, 2, 3], 'node', (running) => sendLoad(running, options.senders, options.sendSeconds, 'Verona'));
  const queued = await each([0, 1], 'node', async (running) => sendLoad(running, QUEUED_SENDERS, options.sendSeconds, await channelOfQueues(running.baseUrls[0]!)));
  return [
    ...againstStandalone(demo).map((row) => ({ channel: 'Verona (demo realm)', senders: options.senders, ...row })),
    ...againstStandalone(queued).map((row) => ({ channel: `${QUEUED_SUBSCRIBERS} subscribers with queues`, senders: QUEUED_SENDERS, ...row })),
  ];
}

const MEMBER_PASSWORD = 'bench-member-password';

/** `count` new users of the owner's realm (`prefix` and a number), subscribed to `channel`. */
async function newMembers(owner: ApiClient, channel: string, prefix: string, count: number): Promise<Member[]> {
  const members: Member[] = [];
  for (let index = 0; index < count; index++) {
    const email = `${prefix}${index}@zulip.com`;
    const created = await owner.post('/users', { email, full_name: `${prefix} ${index}`, password: MEMBER_PASSWORD });
    if (created.status !== 200) throw new Error(JSON.stringify(created.body));
    const key = await owner.post('/fetch_api_key', { username: email, password: MEMBER_PASSWORD });
    members.push({ email, apiKey: String(key.body.api_key) });
  }
  await subscribe(owner, channel, members.map((member) => member.email));
  return members;
}

/** Subscribes the owner (no `principals`) or those users to a channel, creating it if need be. */
async function subscribe(owner: ApiClient, channel: string, principals: string[]): Promise<void> {
  const subscribed = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: channel }], ...(principals.length > 0 && { principals }) });
  if (subscribed.status !== 200) throw new Error(`subscribing to ${channel} failed: ${JSON.stringify(subscribed.body)}`);
}

/** Members for the fan-out: a queue each, at most 100 per user (the queue limit), so users enough. */
async function fanoutMembers(owner: ApiClient, clients: number): Promise<Member[]> {
  const members = await newMembers(owner, 'fanout', 'fan', Math.ceil(clients / 90));
  return Array.from({ length: clients }, (_, index) => members[index % members.length]!);
}

/** One message per round to WebSocket clients spread over every node (a standalone server, or the
 * gateways of a cluster, the first of which seeded the realm and owns it), sent from a thread of its
 * own: its reply is timed while the clients' frames arrive. */
function benchFanout(options: ClusterBenchOptions): Promise<Row[]> {
  return each([0, 1, 2], 'gateway', async ({ baseUrls }) => {
    const owner = await devClient(baseUrls[0]!, 'iago@zulip.com');
    const members = await fanoutMembers(owner, options.fanoutClients);
    const sender = new SenderThread(owner.baseUrl, owner.credentials!);
    const send = async (content: string) => {
      const reply = await sender.call('POST', '/messages', { type: 'stream', to: 'fanout', topic: 'bench', content });
      if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
      return reply.ms;
    };
    let watchers: Watcher[] = [];
    try {
      // The same message with no client connected: what the write itself costs (a row per
      // subscriber), without the fan-out.
      const alone: number[] = [];
      for (let round = 0; round < options.fanoutRepeats; round++) alone.push(await send(`alone ${round}`));
      watchers = await pool(members, 100, (member, index) => connect(baseUrls[index % baseUrls.length]!, member));
      const last: number[] = [];
      const replies: number[] = [];
      for (let round = 0; round < options.fanoutRepeats; round++) {
        const marker = `fanout-${round}-${Math.random().toString(36).slice(2)}`;
        const received = delivered(watchers, marker, DELIVERY_TIMEOUT_MS);
        const sentAt = performance.now();
        replies.push(await send(marker));
        await received;
        last.push(Math.max(...watchers.map((watcher) => watcher.received.get(marker)! - sentAt)));
      }
      return {
        clients: options.fanoutClients,
        'last delivery p50 ms': percentile(last, 50),
        'last delivery p99 ms': percentile(last, 99),
        'deliveries/s': Math.round(options.fanoutClients / (percentile(last, 50) / 1000)),
        'reply p50 ms': percentile(replies, 50),
        'reply p99 ms': percentile(replies, 99),
        'reply, no clients, p50 ms': percentile(alone, 50),
      };
    } finally {
      await sender.close();
      for (const watcher of watchers) watcher.socket.terminate();
    }
  });
}

async function benchFailover(options: ClusterBenchOptions): Promise<Row[]> {
  const running = await cluster(2);
  const times: number[] = [];
  try {
    // The owner is the node that seeded the realm; each round kills the owner and starts a node in
    // its place, which the next round kills once it owns the realm.
    let owner = running.nodes[0]!;
    let other = running.nodes[1]!;
    for (let round = 0; round < options.failoverRounds; round++) {
      const writer = await devClient(other.baseUrl, 'iago@zulip.com');
      owner.child.kill('SIGKILL');
      await owner.exited;
      const killedAt = performance.now();
      for (;;) {
        const response = await writer.post('/messages', { type: 'stream', to: 'Verona', topic: 'failover', content: `round ${round}` });
        if (response.status === 200) break;
      }
      times.push(performance.now() - killedAt);
      owner = other;
      other = await running.addNode();
    }
  } finally {
    await running.stop();
  }
  return [{ rounds: times.length, 'lease ms': LEASE_MS, 'failover p50 ms': percentile(times, 50), 'failover max ms': Math.max(...times) }];
}

/** A node taking a realm over reads its presence from the bucket: the time that takes with
 * `presenceUsers` records there (and as many of another realm beside them). */
async function benchPresence(options: ClusterBenchOptions): Promise<Row[]> {
  const running = await startLocalCluster({ nodes: 0 });
  const shared = await openCluster(
    { servers: running.nats.map((server) => server.url), nodeId: 'bench', replicas: 1, leaseMs: LEASE_MS, pinned: [], snapshotEvery: 1000, snapshotGrowth: 100 },
    createLogger({ level: 'silent', format: 'json' }),
  );
  const times: number[] = [];
  try {
    const realmId = 1;
    const now = Math.floor(Date.now() / 1000);
    for (const realm of [realmId, realmId + 1]) {
      const keeper = await presenceKeeper(shared.presence, realm);
      const users = Array.from({ length: options.presenceUsers }, (_, index) => index + 1);
      for (let start = 0; start < users.length; start += 500) {
        await keeper.keep(realm, users.slice(start, start + 500).map((userId) => [userId, { lastActive: now, lastConnected: now, lastUpdateId: userId }]));
      }
    }
    for (let round = 0; round < options.presenceRounds; round++) {
      const started = performance.now();
      const { saved } = await presenceKeeper(shared.presence, realmId);
      times.push(performance.now() - started);
      if (saved?.users.length !== options.presenceUsers) throw new Error(`read ${saved?.users.length} of ${options.presenceUsers} presence records`);
    }
  } finally {
    await shared.nc.close();
    await running.stop();
  }
  return [{ users: options.presenceUsers, rounds: times.length, 'read p50 ms': percentile(times, 50), 'read max ms': Math.max(...times) }];
}

export async function runCluster(options: ClusterBenchOptions): Promise<void> {
  const send = await benchSend(options);
  printTable(`cluster send: concurrent senders for ${options.sendSeconds} s, spread over the nodes`, send);
  const fanout = await benchFanout(options);
  printTable(`cluster fan-out: one message to ${options.fanoutClients} WebSocket clients, ${options.fanoutRepeats} repeats`, fanout);
  const failover = await benchFailover(options);
  printTable('cluster failover: kill -9 of the owner → first successful write on another node', failover);
  const presence = await benchPresence(options);
  printTable('cluster takeover: a new owner reads the realm\'s presence from the bucket', presence);
  console.log(`results: ${writeResult(options.quick ? 'cluster-quick' : 'cluster', { options, send, fanout, failover, presence })}`);
}
