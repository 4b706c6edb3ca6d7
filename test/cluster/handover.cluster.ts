// Handing realms over: SIGTERM drains a node (its commands finish and reach the log, its copy is
// marked clean, its leases are given up) and another node takes the realm without an error visible
// to clients beyond a retry; a node that never held the realm rebuilds it from the newest snapshot
// and the log after it (a snapshot after 20 log messages here, then once the log is as large as the
// snapshot; the log trimmed behind them) with the same rows, digest for digest.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stop, type ParleyNode } from '../../src/cli/processes.js';
import { digestOf, eventually, logMessages, startCluster } from '../helpers/cluster.js';
import { report } from '../helpers/operator.js';

test('SIGTERM drains the owner under load; a fresh node rebuilds the realm from the log, row for row', async () => {
  const cluster = await startCluster({ nodes: 2, env: { PARLEY_SNAPSHOT_EVERY: '20' } });
  try {
    const [owner, other] = cluster.nodes as [ParleyNode, ParleyNode];
    const writer = await cluster.client(other, 'iago@zulip.com');
    const acknowledged: number[] = [];
    const failed: string[] = [];
    let running = true;
    const load = (async () => {
      for (let serial = 0; running; serial++) {
        const response = await writer.post('/messages', { type: 'stream', to: 'Verona', topic: 'handover', content: `#${serial}` });
        if (response.status === 200) acknowledged.push(Number(response.body.id));
        else failed.push(`${response.status} ${String(response.body.code)}`);
      }
    })();
    // Writes before and after the drain, counted rather than timed (a loaded machine writes slowly):
    // enough for the first snapshot before the drain.
    const written = (count: number) => async () => (acknowledged.length >= count ? true : undefined);
    await eventually(written(20), 30_000, 'writes before the drain');
    const drainStarted = performance.now();
    await stop(owner);
    const drainMs = performance.now() - drainStarted;
    await eventually(written(acknowledged.length + 25), 30_000, 'writes after the drain');
    running = false;
    await load;
    const stored = ((await writer.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [{ operator: 'topic', operand: 'handover' }] })).body.messages as { id: number }[]).map((message) => message.id);
    assert.equal(stored, acknowledged, 'every acknowledged message, once, in order');
    report('drain', { 'acknowledged writes': acknowledged.length, 'errors seen by clients': failed.length, 'drain ms': Math.round(drainMs) });
    assert.ok(acknowledged.length > 40, 'enough writes for snapshots');
    assert.equal(failed, [], 'no client saw an error');

    // The other node owns the realm now; drained in turn, its copy is the realm's last state.
    await stop(other);
    // Trimmed: the log keeps fewer messages than were appended to it (how many writes each append
    // carried depends on the machine's load).
    const { kept, appended } = await logMessages(cluster);
    assert.ok(kept < appended, `the log was trimmed behind its snapshots (${kept} of ${appended} messages kept)`);
    report('snapshots', { 'log messages kept': kept, 'log messages appended': appended, 'writes made': acknowledged.length });
    const fresh = await cluster.addNode();
    const reader = await cluster.client(fresh, 'iago@zulip.com');
    await eventually(async () => ((await reader.get('/users/me')).status === 200 ? true : undefined), 20_000, 'the fresh node serving the realm');
    await stop(fresh);
    assert.is(digestOf(fresh), digestOf(other), 'the realm rebuilt from the log has the same rows');
  } finally {
    await cluster.stop();
  }
});

test.run();
