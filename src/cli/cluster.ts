// `npm run cluster -- --nodes 3 [--nats 3] [--dir DIR]`: a local cluster for trying cluster mode and
// for benchmarks: nats-server on loopback (three form a NATS cluster with replicated logs) and N
// Parley nodes, each on its own port and data directory. Ctrl-C drains the nodes and stops it all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startNats, startNode, stop, type Proc } from './processes.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '3' }, nats: { type: 'string', default: '1' }, dir: { type: 'string' } } });
const nodes = Number(values.nodes);
const natsCount = Number(values.nats);
if (!Number.isInteger(nodes) || nodes < 1 || (natsCount !== 1 && natsCount !== 3)) {
  console.error('usage: npm run cluster -- --nodes N [--nats 1|3] [--dir DIR]');
  process.exit(2);
}
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'parley-cluster-'));
const running: Proc[] = [];
try {
  const nats = await startNats(natsCount as 1 | 3, dir);
  running.push(...nats);
  console.log(`NATS: ${nats.map((server) => server.url).join(', ')}`);
  const replicas = { PARLEY_NATS_REPLICAS: String(natsCount) };
  for (let index = 1; index <= nodes; index++) {
    const node = await startNode(nats.map((server) => server.url), `node-${index}`, join(dir, `node-${index}`), replicas, true);
    running.push(node);
    console.log(`node-${index}: ${node.baseUrl}`);
  }
  console.log(`data in ${dir}; Ctrl-C stops the cluster`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await Promise.all(running.map((proc) => stop(proc)));
  process.exit(1);
}

const shutdown = async () => {
  // Nodes first (they hand their realms over and reach the log), then NATS.
  await Promise.all(running.slice(natsCount).map((proc) => stop(proc)));
  await Promise.all(running.slice(0, natsCount).map((proc) => stop(proc)));
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
