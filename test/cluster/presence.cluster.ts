// Presence after a failover: the owner keeps presence in memory, and also in the cluster's presence
// bucket before it answers a report, so a node taking the realm over after kill -9 of the owner
// serves the same presence (GET /realm/presence, register's presences) and numbers its later
// updates after the ones clients have seen.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParleyNode } from '../../src/cli/processes.js';
import type { ApiClient } from '../helpers/client.js';
import { eventually, startCluster } from '../helpers/cluster.js';
import { register } from '../helpers/events.js';
import { assertMatchesReference } from '../helpers/reference.js';

type LegacyPresences = Record<string, { aggregated: { status: string; timestamp: number } }>;

async function report(client: ApiClient, status: 'active' | 'idle') {
  const response = await client.post('/users/me/presence', { status, slim_presence: true });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body as { presences: Record<string, { active_timestamp: number }>; presence_last_update_id: number };
}

test('kill -9 of the owner: the new owner serves the presence reported before', async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    // The first node seeded the demo realm and holds its lease.
    const [owner, survivor] = cluster.nodes as [ParleyNode, ParleyNode];
    // Reported through either node: the one on the survivor is forwarded to the owner.
    const hamlet = await cluster.client(survivor, 'hamlet@zulip.com');
    const othello = await cluster.client(owner, 'othello@zulip.com');
    const hamletId = Number((await hamlet.get('/users/me')).body.user_id);
    const reported = await report(hamlet, 'active');
    await report(othello, 'idle');
    const seen = (await othello.get('/realm/presence')).body.presences as LegacyPresences;
    assert.equal(Object.keys(seen).sort(), ['hamlet@zulip.com', 'othello@zulip.com']);

    owner.child.kill('SIGKILL');
    const after = await eventually(async () => {
      const response = await hamlet.get('/realm/presence');
      return response.status === 200 ? response.body : undefined;
    }, 20_000, 'GET /realm/presence on the new owner');
    assertMatchesReference('GET /realm/presence', after);
    assert.equal(after.presences, seen, 'the same presence, status and times, on the new owner');

    const registered = await register(hamlet, { fetch_event_types: ['presence'], slim_presence: true });
    const presences = registered.state.presences as Record<string, { active_timestamp: number }>;
    assert.is(presences[String(hamletId)]?.active_timestamp, reported.presences[String(hamletId)]?.active_timestamp);
    assert.is(Object.keys(presences).length, 2);

    // A new user's report on the new owner gets an update ID after every one clients saw before.
    const iago = await cluster.client(survivor, 'iago@zulip.com');
    const later = await report(iago, 'active');
    assert.ok(later.presence_last_update_id > Number(registered.state.presence_last_update_id), JSON.stringify(later));
  } finally {
    await cluster.stop();
  }
});

test.run();
