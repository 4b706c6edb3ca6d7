// kill -9 under load with realms on two realm threads (PARLEY_REALM_THREADS=2, a shard each): two
// realms in different shards take messages at once, the server is killed at a random moment, and
// after each restart every message either realm acknowledged is in it, no message ID was handed out
// twice across the shards, and each realm's new messages have IDs above every message any shard
// acknowledged before (the shared counters are raised from every shard's commits). FAULT_ROUNDS
// sets the rounds (5).
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/client.js';
import { report, tempDataDir } from '../helpers/operator.js';
import { runManage, spawnServer, type ServerProcess } from '../helpers/process.js';

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 5);
const SENDERS_PER_REALM = 4;

interface Realm {
  subdomain: string;
  credentials: { email: string; apiKey: string };
  acknowledged: number[];
}

const clientOf = (server: ServerProcess, realm: Realm) => new ApiClient(server.baseUrl, realm.credentials, `${realm.subdomain}.localhost`);

async function stored(server: ServerProcess, realm: Realm): Promise<number[]> {
  const response = await clientOf(server, realm).get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [{ operator: 'channel', operand: 'crash' }] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return (response.body.messages as { id: number }[]).map((message) => message.id);
}

test('every message acknowledged in realms on two shards survives kill -9, and IDs stay unique and growing across them', async () => {
  const dataDir = tempDataDir();
  const env = { PARLEY_DATA_DIR: dataDir, PARLEY_REALM_THREADS: '2', PARLEY_THREADS: process.env.PARLEY_THREADS ?? '2' };
  // The CLI puts the first realm in shard 0 and the second in shard 1.
  const realms: Realm[] = ['east', 'west'].map((subdomain) => {
    const made = runManage(['create-realm', '--subdomain', subdomain, '--name', subdomain, '--owner-email', `owner@${subdomain}.example`, '--owner-name', 'Owner'], env);
    assert.is(made.status, 0, made.stderr);
    return { subdomain, credentials: { email: `owner@${subdomain}.example`, apiKey: (JSON.parse(made.stdout) as { api_key: string }).api_key }, acknowledged: [] };
  });
  let server: ServerProcess | undefined;
  let highest = 0;
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      server = await spawnServer(env);
      for (const realm of realms) {
        if (round === 0) assert.is((await clientOf(server, realm).post('/users/me/subscriptions', { subscriptions: [{ name: 'crash' }] })).status, 200);
        const kept = await stored(server, realm);
        assert.equal(realm.acknowledged.filter((id) => !kept.includes(id)), [], `${realm.subdomain}, round ${round}: every acknowledged message survived`);
        const next = await clientOf(server, realm).post('/messages', { type: 'stream', to: 'crash', topic: 'after', content: `after round ${round}` });
        assert.is(next.status, 200);
        assert.ok(Number(next.body.id) > highest, `${realm.subdomain}, round ${round}: message ${next.body.id} is above ${highest}, the highest any shard acknowledged`);
        realm.acknowledged.push(Number(next.body.id));
      }
      if (round === ROUNDS) break;
      let running = true;
      const load = realms.flatMap((realm) =>
        Array.from({ length: SENDERS_PER_REALM }, async (_, sender) => {
          const client = clientOf(server!, realm);
          for (let serial = 0; running; serial++) {
            const response = await client.post('/messages', { type: 'stream', to: 'crash', topic: 'load', content: `${round}.${sender}.${serial}` }).catch(() => undefined);
            if (response?.status === 200) realm.acknowledged.push(Number(response.body.id));
            else running = false;
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.floor(Math.random() * 1200)));
      server.child.kill('SIGKILL');
      await server.exited;
      running = false;
      await Promise.all(load);
      const all = realms.flatMap((realm) => realm.acknowledged);
      assert.is(new Set(all).size, all.length, `round ${round}: no message ID acknowledged twice across the shards`);
      highest = Math.max(...all);
    }
    report('kill -9 with two realm threads', { rounds: ROUNDS, ...Object.fromEntries(realms.map((realm) => [`${realm.subdomain} acknowledged`, realm.acknowledged.length])) });
  } finally {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
