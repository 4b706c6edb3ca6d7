// `npm run cluster -- --nodes 3 [--nats 3] [--dir DIR]`: a local cluster for trying cluster mode and
// for benchmarks: nats-server on loopback (three form a NATS cluster with replicated logs) and N
// Parley nodes, each on its own port and data directory. Ctrl-C drains the nodes and stops it all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalCluster } from './localCluster.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '3' }, nats: { type: 'string', default: '1' }, dir: { type: 'string' } } });
const nodes = Number(values.nodes);
const natsCount = Number(values.nats);
if (!Number.isInteger(nodes) || nodes < 1 || (natsCount !== 1 && natsCount !== 3)) {
  console.error('usage: npm run cluster -- --nodes N [--nats 1|3] [--dir DIR]');
  process.exit(2);
}
const cluster = await startLocalCluster({ nodes, nats: natsCount as 1 | 3, dir: values.dir ?? mkdtempSync(join(tmpdir(), 'parley-cluster-')), echo: true }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
console.log(`NATS: ${cluster.nats.map((server) => server.url).join(', ')}`);
for (const node of cluster.nodes) console.log(`${node.nodeId}: ${node.baseUrl}`);
console.log(`data in ${cluster.dir}; Ctrl-C stops the cluster`);

const shutdown = async () => {
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
