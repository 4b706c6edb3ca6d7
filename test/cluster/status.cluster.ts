// The operator's status page in cluster mode: each node's /status.json names the live nodes and
// the node that owns each realm, and says whether the realm is loaded on the node asked.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startNode, stop, type ParleyNode } from '../../src/cli/processes.js';
import type { StatusSnapshot } from '../../src/ops/metrics.js';
import { eventually, startCluster, TEST_LEASE_MS } from '../helpers/cluster.js';

const status = async (port: number): Promise<StatusSnapshot> => (await (await fetch(`http://127.0.0.1:${port}/status.json`)).json()) as StatusSnapshot;

test("each node's status names the live nodes, the owner of each realm, and whether it is loaded there", async () => {
  const [portA, portB] = [await freePort(), await freePort()];
  const cluster = await startCluster({ nodes: 1, env: { PARLEY_METRICS_PORT: String(portA) } });
  let b: ParleyNode | undefined;
  try {
    const [a] = cluster.nodes as [ParleyNode];
    b = await startNode(
      cluster.nats.map((server) => server.url),
      'node-b',
      join(cluster.dir, 'node-b'),
      { PARLEY_LEASE_MS: String(TEST_LEASE_MS), PARLEY_RATE_LIMITS: 'false', PARLEY_NATS_REPLICAS: '1', PARLEY_METRICS_PORT: String(portB) },
    );
    const fromB = await eventually(async () => {
      const snapshot = await status(portB);
      return snapshot.nodes?.length === 2 && snapshot.realms.length > 0 ? snapshot : undefined;
    }, 10_000, 'node-b sees both nodes');
    assert.equal(fromB.nodes, [a.nodeId, 'node-b'].sort());
    const demoOnB = fromB.realms.find((realm) => realm.subdomain === '')!;
    // The first node took the demo realm; the second serves it through the first.
    assert.equal({ owner: demoOnB.owner, loaded: demoOnB.loaded }, { owner: a.nodeId, loaded: false });
    const demoOnA = (await status(portA)).realms.find((realm) => realm.id === demoOnB.id)!;
    assert.equal({ owner: demoOnA.owner, loaded: demoOnA.loaded }, { owner: a.nodeId, loaded: true });
  } finally {
    if (b) await stop(b);
    await cluster.stop();
  }
});

test.run();
