// Three NATS servers keep three copies of every log and lease: one of them killed under write load,
// the cluster goes on writing and nothing acknowledged is lost.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParleyNode } from '../../src/cli/processes.js';
import { eventually, startCluster } from '../helpers/cluster.js';
import { report } from '../helpers/operator.js';

test('kill -9 of one of three nats-servers under load: writes go on, none acknowledged is lost', async () => {
  const cluster = await startCluster({ nodes: 2, nats: 3 });
  try {
    const [first, second] = cluster.nodes as [ParleyNode, ParleyNode];
    const clients = [await cluster.client(first, 'iago@zulip.com'), await cluster.client(second, 'hamlet@zulip.com')];
    const acknowledged: number[] = [];
    let failures = 0;
    let running = true;
    const load = clients.map(async (client, worker) => {
      for (let serial = 0; running; serial++) {
        const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'nats', content: `w${worker} #${serial}` }).catch(() => undefined);
        if (response?.status === 200) acknowledged.push(Number(response.body.id));
        else {
          failures++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const beforeKill = acknowledged.length;
    cluster.nats[1]!.child.kill('SIGKILL');
    await eventually(async () => (acknowledged.length > beforeKill + 50 ? true : undefined), 20_000, 'writes going on after the kill').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${cluster.nodes.map((node) => `--- ${node.nodeId}\n${node.tail()}`).join('\n')}`);
    });
    running = false;
    await Promise.all(load);
    const stored = ((await clients[1]!.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [{ operator: 'topic', operand: 'nats' }] })).body.messages as { id: number }[]).map((message) => message.id);
    assert.equal(acknowledged.filter((id) => !stored.includes(id)), [], 'every acknowledged write is there');
    assert.is(new Set(stored).size, stored.length);
    report('one NATS server of three killed', { 'acknowledged writes': acknowledged.length, 'before the kill': beforeKill, 'failed requests': failures });
  } finally {
    await cluster.stop();
  }
});

test.run();
