// A cluster on loopback for tests: nats-server (one, or three), Parley nodes as child processes,
// clients of demo users on any node, and digests of a node's copy of a realm once it stopped.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codec, type Answered, type Asked } from '../../src/cluster/commandWire.js';
import { LOG_STREAM, openCluster, subjects, type Cluster } from '../../src/cluster/connection.js';
import type { Lease } from '../../src/cluster/leases.js';
import { kvCodec } from '../../src/cluster/watched.js';
import { startLocalCluster, type LocalCluster } from '../../src/cli/localCluster.js';
import { startNats, stop, type ParleyNode } from '../../src/cli/processes.js';
import { loadConfig } from '../../src/config.js';
import type { ApiClient } from './client.js';
import { devClient } from './operator.js';
import { runManage } from './process.js';

export interface TestCluster extends LocalCluster {
  client(node: ParleyNode, email: string): Promise<ApiClient>;
}

/** Short leases, so that takeovers happen within a test's patience. */
export const TEST_LEASE_MS = 1500;

export async function startCluster(options: { nodes: number; nats?: 1 | 3; env?: Record<string, string> }): Promise<TestCluster> {
  const env = { PARLEY_LEASE_MS: String(TEST_LEASE_MS), PARLEY_RATE_LIMITS: 'false', ...options.env };
  const cluster = await startLocalCluster({ ...options, env });
  return Object.assign(cluster, { client: (node: ParleyNode, email: string) => devClient(node.baseUrl, email) });
}

/** Runs `run` against a fresh cluster of `nodes` nodes (two or more), stopped after: the first
 * node seeded the demo realm and holds its lease; the others serve it through that one. */
export async function withCluster(nodes: number, run: (cluster: TestCluster, owner: ParleyNode, others: [ParleyNode, ...ParleyNode[]]) => Promise<void>): Promise<void> {
  if (nodes < 2) throw new Error('withCluster runs two nodes or more');
  const cluster = await startCluster({ nodes });
  try {
    const [owner, ...others] = cluster.nodes as [ParleyNode, ParleyNode, ...ParleyNode[]];
    await run(cluster, owner, others);
  } finally {
    await cluster.stop();
  }
}

/** Runs `check` on a cluster connection (node `nodeId`, with no Parley node) to a nats-server of
 * its own: the cluster's pieces tested at the wire. */
export async function onNats(check: (cluster: Cluster, natsUrl: string) => Promise<void>, nodeId = 'wire'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-nats-'));
  const [nats] = await startNats(1, dir);
  const settings = { servers: [nats!.url], nodeId, replicas: 1, leaseMs: TEST_LEASE_MS, pinned: [], snapshotEvery: 1000, snapshotGrowth: 100 };
  const cluster = await openCluster(settings, loadConfig({}).log);
  try {
    await check(cluster, nats!.url);
  } finally {
    await cluster.nc.close();
    await stop(nats!);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `run` with a NATS connection of the test's own to the cluster's servers, closed after. */
export async function withNats<T>(cluster: LocalCluster, run: (nc: NatsConnection) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    return await run(nc);
  } finally {
    await nc.close();
  }
}

/** Asks a realm's owner one request as a gateway would (src/cluster/commandWire.ts): its answer. */
export async function askOwner(nc: NatsConnection, realmId: number, asked: Asked, timeoutMs: number): Promise<Answered> {
  const reply = await nc.request(subjects.commands(realmId), codec.pack(asked), { timeout: timeoutMs });
  const [answer] = codec.unpackMultiple(reply.data) as Answered[];
  return answer!;
}

/** The digest of a stopped node's copy of the demo realm (the management CLI's `digest`). */
export function digestOf(node: ParleyNode): string {
  const result = runManage(['digest', '--realm', ''], { PARLEY_DATA_DIR: node.dataDir });
  if (result.status !== 0) throw new Error(`digest failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** Waits for a condition, polling, within `ms`. */
export async function eventually<T>(attempt: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How many messages the realms' logs hold now (all subjects of the log stream), and how many were
 * ever appended to them (the stream's last sequence). */
export async function logMessages(cluster: TestCluster): Promise<{ kept: number; appended: number }> {
  const nc = await connect({ servers: cluster.nats.map((server) => server.url) });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(LOG_STREAM, { subjects_filter: 'parley.log.>' });
    return { kept: Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0), appended: info.state.last_seq };
  } finally {
    await nc.close();
  }
}

/** The demo realm's ID, from the realm directory, and its owner's lease epoch. */
export async function demoRealmLease(nc: NatsConnection): Promise<{ realmId: number; epoch: number }> {
  const kvm = new Kvm(nc);
  const realms = await kvm.open('parley_realms');
  for await (const key of await realms.keys()) {
    if (!/^\d+$/.test(key)) continue;
    const lease = await (await kvm.open('parley_leases')).get(key);
    return { realmId: Number(key), epoch: (kvCodec.unpack(lease!.value) as Lease).epoch };
  }
  throw new Error('no realm in the directory');
}
