// Cluster benchmark (`npm run bench -- cluster`): clusters on loopback (one nats-server, Parley
// nodes as processes), measured against a standalone server under the same load.
// - send: POST /messages from concurrent senders spread over 1, 2 and 3 nodes, and standalone:
//   messages per second and latency — what the log append costs against a plain LMDB commit;
// - fan-out: one message to WebSocket clients spread over 1 or 2 gateway nodes: the last delivery,
//   deliveries per second, and the sender's reply while the fan-out runs;
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
import { connect, type Watcher } from './fanout.js';
import type { Member } from './lib/dataset.js';
import { percentile, pool, printTable, writeResult, type Row } from './lib/stats.js';

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

function cluster(nodes: number): Promise<LocalCluster> {
  return startLocalCluster({ nodes, env: { PARLEY_LEASE_MS: String(LEASE_MS), PARLEY_RATE_LIMITS: 'false' } });
}

/** Senders spread over the base URLs, each sending one message after another for `seconds`. */
async function sendLoad(baseUrls: string[], senders: number, seconds: number): Promise<Row> {
  const clients = await Promise.all(Array.from({ length: senders }, (_, index) => devClient(baseUrls[index % baseUrls.length]!, ['iago@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com', 'cordelia@zulip.com'][index % 4]!)));
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (client, index) => {
      for (let serial = 0; performance.now() < end; serial++) {
        const started = performance.now();
        const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: `bench ${index}`, content: `message ${serial}` });
        if (response.status === 200) latencies.push(performance.now() - started);
        else failures++;
      }
    }),
  );
  return { 'messages/s': latencies.length / seconds, 'p50 ms': percentile(latencies, 50), 'p99 ms': percentile(latencies, 99), failures };
}

async function benchSend(options: ClusterBenchOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-standalone-'));
  const standalone = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    rows.push({ setup: 'standalone', ...(await sendLoad([standalone.baseUrl], options.senders, options.sendSeconds)) });
  } finally {
    standalone.child.kill('SIGTERM');
    await standalone.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const nodes of [1, 2, 3]) {
    const running = await cluster(nodes);
    try {
      rows.push({ setup: `cluster, ${nodes} node${nodes > 1 ? 's' : ''}`, ...(await sendLoad(running.nodes.map((node) => node.baseUrl), options.senders, options.sendSeconds)) });
    } finally {
      await running.stop();
    }
  }
  return rows;
}

/** Members for the fan-out: a queue each, at most 100 per user (the queue limit), so users enough. */
async function fanoutMembers(owner: ApiClient, clients: number): Promise<Member[]> {
  const users = Math.ceil(clients / 90);
  const members: Member[] = [];
  for (let index = 0; index < users; index++) {
    const email = `fan${index}@zulip.com`;
    const created = await owner.post('/users', { email, full_name: `Fan ${index}`, password: 'fan-out-password' });
    if (created.status !== 200) throw new Error(JSON.stringify(created.body));
    const key = await owner.post('/fetch_api_key', { username: email, password: 'fan-out-password' });
    members.push({ email, apiKey: String(key.body.api_key) });
  }
  await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'fanout' }], principals: members.map((member) => member.email) });
  return Array.from({ length: clients }, (_, index) => members[index % members.length]!);
}

async function benchFanout(options: ClusterBenchOptions): Promise<Row[]> {
  const rows: Row[] = [];
  for (const gateways of [1, 2]) {
    const running = await cluster(gateways);
    try {
      // The first node seeded the realm and owns it; clients spread over every gateway.
      const owner = await devClient(running.nodes[0]!.baseUrl, 'iago@zulip.com');
      const members = await fanoutMembers(owner, options.fanoutClients);
      const watchers: Watcher[] = await pool(members, 100, (member, index) => connect(running.nodes[index % gateways]!.baseUrl, member));
      const last: number[] = [];
      const replies: number[] = [];
      for (let round = 0; round < options.fanoutRepeats; round++) {
        const marker = `fanout-${round}-${Math.random().toString(36).slice(2)}`;
        let pending = watchers.length;
        const received = new Promise<void>((resolve) => {
          for (const watcher of watchers) watcher.watch(marker, () => --pending === 0 && resolve());
        });
        const sentAt = performance.now();
        const response = await owner.post('/messages', { type: 'stream', to: 'fanout', topic: 'bench', content: marker });
        if (response.status !== 200) throw new Error(JSON.stringify(response.body));
        replies.push(performance.now() - sentAt);
        await received;
        last.push(Math.max(...watchers.map((watcher) => watcher.received.get(marker)! - sentAt)));
      }
      for (const watcher of watchers) watcher.socket.terminate();
      rows.push({
        gateways,
        clients: options.fanoutClients,
        'last delivery p50 ms': percentile(last, 50),
        'last delivery p99 ms': percentile(last, 99),
        'deliveries/s': Math.round(options.fanoutClients / (percentile(last, 50) / 1000)),
        'reply p50 ms': percentile(replies, 50),
      });
    } finally {
      await running.stop();
    }
  }
  return rows;
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
    { servers: running.nats.map((server) => server.url), nodeId: 'bench', replicas: 1, leaseMs: LEASE_MS, pinned: [], snapshotEvery: 1000 },
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
  printTable(`cluster send: ${options.senders} concurrent senders for ${options.sendSeconds} s, spread over the nodes`, send);
  const fanout = await benchFanout(options);
  printTable(`cluster fan-out: one message to ${options.fanoutClients} WebSocket clients, ${options.fanoutRepeats} repeats`, fanout);
  const failover = await benchFailover(options);
  printTable('cluster failover: kill -9 of the owner → first successful write on another node', failover);
  const presence = await benchPresence(options);
  printTable('cluster takeover: a new owner reads the realm\'s presence from the bucket', presence);
  console.log(`results: ${writeResult(options.quick ? 'cluster-quick' : 'cluster', { options, send, fanout, failover, presence })}`);
}
