// The management CLI against a running cluster (PARLEY_NATS_URL set): a realm it creates is made
// by one node and served by every node; its users and keys are the realm's, whichever node owns it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/client.js';
import { startCluster } from '../helpers/cluster.js';
import { runManageAsync } from '../helpers/process.js';

test('create-realm, create-user, api-key and list-realms reach the cluster; every node serves the new realm', async () => {
  const cluster = await startCluster({ nodes: 2 });
  try {
    const env = { PARLEY_NATS_URL: cluster.nats.map((server) => server.url).join(','), PARLEY_LOG_LEVEL: 'warn' };
    const manage = async (...args: string[]) => (await runManageAsync(args, env)).trim();
    const created = JSON.parse(await manage('create-realm', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss')) as { realm_id: number; owner_id: number; api_key: string };
    const user = JSON.parse(await manage('create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--role', 'moderator')) as { user_id: number; api_key: string };
    assert.is(await manage('api-key', '--realm', 'acme', '--email', 'ann@acme.test'), user.api_key);
    const realms = (await manage('list-realms')).split('\n').map((line) => line.split('\t'));
    assert.ok(realms.some(([id, subdomain, name]) => Number(id) === created.realm_id && subdomain === 'acme' && name === 'Acme'), JSON.stringify(realms));
    assert.ok(realms.some(([, subdomain]) => subdomain === '(root)'), 'the demo realm is listed too');

    for (const node of cluster.nodes) {
      const ann = new ApiClient(node.baseUrl, { email: 'ann@acme.test', apiKey: user.api_key }, 'acme.localhost:9991');
      const me = await ann.get('/users/me');
      assert.equal([me.status, me.body.user_id, me.body.role], [200, user.user_id, 300]);
      const boss = new ApiClient(node.baseUrl, { email: 'boss@acme.test', apiKey: created.api_key }, 'acme.localhost:9991');
      assert.is((await boss.get('/users/me')).body.role, 100);
    }

    // A regenerated key works at once on every node; the old one no longer does.
    const renewed = await manage('regenerate-api-key', '--realm', 'acme', '--email', 'ann@acme.test');
    for (const node of cluster.nodes) {
      assert.is((await new ApiClient(node.baseUrl, { email: 'ann@acme.test', apiKey: renewed }, 'acme.localhost:9991').get('/users/me')).status, 200);
      assert.is((await new ApiClient(node.baseUrl, { email: 'ann@acme.test', apiKey: user.api_key }, 'acme.localhost:9991').get('/users/me')).status, 401);
    }
    // A subdomain taken is refused by the node that answers.
    const again = await manage('create-realm', '--subdomain', 'acme', '--name', 'Acme 2', '--owner-email', 'x@acme.test', '--owner-name', 'X').then(
      () => 'created',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    assert.match(again, "error: a realm with subdomain 'acme' exists");
  } finally {
    await cluster.stop();
  }
});

test.run();
