// A whole cluster on loopback: nats-server (one, or three in a NATS cluster with replicated logs)
// and Parley nodes, each with its own port and data directory. One piece of code starts it for
// `npm run cluster`, the cluster tests and the cluster benchmarks; a start that fails part-way
// stops what it had started (a live child would keep the caller's process open).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, startNode, stop, type NatsServer, type ParleyNode } from './processes.js';

export interface LocalClusterOptions {
  nodes: number;
  nats?: 1 | 3;
  /** Settings every node gets on top of the cluster's own. */
  env?: Record<string, string>;
  /** Where the servers keep their data; by default a temporary directory, removed by `stop`. */
  dir?: string;
  /** Write each node's output here, behind its name. */
  echo?: boolean;
}

export interface LocalCluster {
  dir: string;
  nats: NatsServer[];
  nodes: ParleyNode[];
  /** Starts one more node (named node-<n>). */
  addNode(): Promise<ParleyNode>;
  /** Starts a node that stopped or was killed again, under its name and on its data directory. */
  restart(node: ParleyNode): Promise<ParleyNode>;
  /** Stops the nodes (they hand their realms over), then NATS. */
  stop(): Promise<void>;
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'parley-cluster-'));
  const natsCount = options.nats ?? 1;
  const nats = await startNats(natsCount, dir);
  const env = { PARLEY_NATS_REPLICAS: String(natsCount), ...options.env };
  const nodes: ParleyNode[] = [];
  const cluster: LocalCluster = {
    dir,
    nats,
    nodes,
    async addNode() {
      const id = `node-${nodes.length + 1}`;
      const node = await startNode(nats.map((server) => server.url), id, join(dir, id), env, options.echo);
      nodes.push(node);
      return node;
    },
    async restart(node) {
      const again = await startNode(nats.map((server) => server.url), node.nodeId, node.dataDir, env, options.echo);
      nodes[nodes.indexOf(node)] = again;
      return again;
    },
    async stop() {
      await Promise.all(nodes.map((node) => stop(node)));
      await Promise.all(nats.map((server) => stop(server)));
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let index = 0; index < options.nodes; index++) await cluster.addNode();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
