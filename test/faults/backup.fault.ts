// Online backup under write load: `manage backup` copies a running server's data directory while
// senders keep writing; the backup verifies, restores into an empty directory, and a server started
// on the restore holds every message acknowledged before the backup began, with the realm in the
// state the manifest records. A damaged backup fails verification; restore never overwrites data. A
// data directory with realms on several shards backs up and restores every one.
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'lmdb';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/client.js';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { runManage, runManageAsync, spawnServer } from '../helpers/process.js';

test('a backup taken under write load restores to a server with every write acknowledged before it', async () => {
  const dataDir = tempDataDir();
  const backupDir = join(tempDataDir(), 'backup');
  const restoredDir = join(tempDataDir(), 'restored');
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    const clients = await Promise.all(['iago@zulip.com', 'hamlet@zulip.com'].map((email) => devClient(server.baseUrl, email)));
    const acknowledged: number[] = [];
    let running = true;
    const load = clients.map(async (client, worker) => {
      for (let serial = 0; running; serial++) {
        const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'backup', content: `w${worker} #${serial}` });
        assert.is(response.status, 200);
        acknowledged.push(Number(response.body.id));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const beforeBackup = [...acknowledged];
    const summary = JSON.parse(await runManageAsync(['backup', '--to', backupDir], { PARLEY_DATA_DIR: dataDir })) as { realms: number; bytes: number };
    const duringBackup = acknowledged.length - beforeBackup.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    running = false;
    await Promise.all(load);
    assert.is(summary.realms, 1);

    const verified = runManage(['verify', '--from', backupDir], {});
    assert.is(verified.status, 0, verified.stderr);
    const restored = runManage(['restore', '--from', backupDir], { PARLEY_DATA_DIR: restoredDir });
    assert.is(restored.status, 0, restored.stderr);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as { realms: { digest: string }[] };
    assert.is(runManage(['digest'], { PARLEY_DATA_DIR: restoredDir }).stdout.trim(), manifest.realms[0]!.digest, 'the restored realm is the one the manifest records');

    const again = await spawnServer({ PARLEY_DATA_DIR: restoredDir, PARLEY_MODE: 'development' });
    try {
      const reader = await devClient(again.baseUrl, 'iago@zulip.com');
      const stored = ((await reader.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [{ operator: 'topic', operand: 'backup' }] })).body.messages as { id: number }[]).map((message) => message.id);
      assert.equal(beforeBackup.filter((id) => !stored.includes(id)), [], 'every write acknowledged before the backup is in it');
      assert.ok(stored.every((id) => acknowledged.includes(id)), 'and nothing that was never acknowledged');
      report('online backup', { 'acknowledged before': beforeBackup.length, 'acknowledged while copying': duringBackup, 'in the backup': stored.length, 'backup bytes': summary.bytes });
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    for (const dir of [dataDir, dirname(backupDir), dirname(restoredDir)]) rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged backup fails verification, and restore never writes over a data directory', async () => {
  const dataDir = tempDataDir();
  const backupDir = join(tempDataDir(), 'backup');
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    await runManageAsync(['backup', '--to', backupDir], { PARLEY_DATA_DIR: dataDir });
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const refusedRestore = runManage(['restore', '--from', backupDir], { PARLEY_DATA_DIR: dataDir });
  assert.is(refusedRestore.status, 2);
  assert.match(refusedRestore.stderr, /is not empty/);
  const refusedBackup = runManage(['backup', '--to', backupDir], { PARLEY_DATA_DIR: dataDir });
  assert.match(refusedBackup.stderr, /is not empty/);
  // A backup made before shards (manifest format 1: one store, of data format 9) still verifies,
  // again and again (verify reads a copy: opening the old format would bring the file up to date),
  // and restores.
  const manifestFile = join(backupDir, 'manifest.json');
  const { createdAt, stores, realms } = JSON.parse(readFileSync(manifestFile, 'utf8')) as { createdAt: string; stores: { shard: number; file: string }[]; realms: { shard: number }[] };
  const [{ shard: _storeShard, ...store }] = stores as [{ shard: number; file: string }];
  const stored = open({ path: join(backupDir, store.file) });
  await stored.openDB({ name: 'meta' }).put('storeFormat', 9);
  await stored.close();
  const sealed = readFileSync(join(backupDir, store.file));
  const sealedStore = { ...store, bytes: sealed.length, sha256: createHash('sha256').update(sealed).digest('hex') };
  writeFileSync(manifestFile, JSON.stringify({ format: 1, createdAt, store: sealedStore, realms: realms.map(({ shard: _realmShard, ...realm }) => realm) }));
  for (let time = 0; time < 2; time++) assert.is(runManage(['verify', '--from', backupDir], {}).status, 0, `verify, time ${time + 1}`);
  const restoredDir = join(tempDataDir(), 'restored');
  const restored = runManage(['restore', '--from', backupDir], { PARLEY_DATA_DIR: restoredDir });
  assert.is(restored.status, 0, restored.stderr);
  assert.match(restored.stdout, /"format":1,"realms":1/);
  rmSync(dirname(restoredDir), { recursive: true, force: true });
  const file = join(backupDir, 'parley.mdb');
  const bytes = readFileSync(file);
  bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
  writeFileSync(file, bytes);
  const damaged = runManage(['verify', '--from', backupDir], {});
  assert.is(damaged.status, 2);
  assert.match(damaged.stderr, /does not match its checksum: the backup is damaged/);
  for (const dir of [dataDir, dirname(backupDir)]) rmSync(dir, { recursive: true, force: true });
});

test('a data directory with realms on two shards backs up, verifies, restores and exports every realm from its shard', async () => {
  const dataDir = tempDataDir();
  const backupDir = join(tempDataDir(), 'backup');
  const restoredDir = join(tempDataDir(), 'restored');
  const exportDir = join(tempDataDir(), 'export');
  const shards = { PARLEY_DATA_DIR: dataDir, PARLEY_REALM_THREADS: '2' };
  // The CLI puts each new realm in the shard with the fewest: the first in shard 0, the second in 1.
  const owners = ['north', 'south'].map((subdomain) => {
    const made = runManage(['create-realm', '--subdomain', subdomain, '--name', subdomain, '--owner-email', `owner@${subdomain}.example`, '--owner-name', 'Owner'], shards);
    assert.is(made.status, 0, made.stderr);
    const { api_key: apiKey } = JSON.parse(made.stdout) as { api_key: string };
    return { subdomain, credentials: { email: `owner@${subdomain}.example`, apiKey } };
  });
  assert.ok(existsSync(join(dataDir, 'shards', '1', 'parley.mdb')), 'the second realm made shard 1');
  const server = await spawnServer({ ...shards, PARLEY_THREADS: '2' });
  const sent = new Map<string, number[]>();
  try {
    for (const { subdomain, credentials } of owners) {
      const client = new ApiClient(server.baseUrl, credentials, `${subdomain}.localhost`);
      const channel = await client.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
      assert.is(channel.status, 200, JSON.stringify(channel.body));
      const ids: number[] = [];
      for (let serial = 0; serial < 5; serial++) {
        const response = await client.post('/messages', { type: 'stream', to: 'general', topic: 'backup', content: `${subdomain} #${serial}` });
        assert.is(response.status, 200, JSON.stringify(response.body));
        ids.push(Number(response.body.id));
      }
      sent.set(subdomain, ids);
    }
    // Not while a realm moves between shards (this process stands for the move).
    writeFileSync(join(dataDir, 'parley.moving'), String(process.pid));
    const waiting = runManage(['backup', '--to', backupDir], { PARLEY_DATA_DIR: dataDir });
    assert.is(waiting.status, 2);
    assert.match(waiting.stderr, new RegExp(`process ${process.pid} is moving a realm`));
    rmSync(join(dataDir, 'parley.moving'));
    rmSync(backupDir, { recursive: true, force: true });
    const summary = JSON.parse(await runManageAsync(['backup', '--to', backupDir], { PARLEY_DATA_DIR: dataDir })) as { realms: number; stores: number };
    assert.equal(summary, { ...summary, realms: 2, stores: 2 });
    const exported = runManage(['export', '--realm', 'south', '--to', exportDir], { PARLEY_DATA_DIR: dataDir });
    assert.is(exported.status, 0, exported.stderr);
    const realm = JSON.parse(readFileSync(join(exportDir, 'realm.json'), 'utf8')) as { zerver_realm: { string_id: string }[] };
    assert.is(realm.zerver_realm[0]!.string_id, 'south', 'the export is of the realm in shard 1');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as { stores: { shard: number; file: string }[]; realms: { subdomain: string; shard: number }[] };
  assert.equal(manifest.stores.map(({ shard, file }) => [shard, file]), [[0, 'parley.mdb'], [1, join('shards', '1', 'parley.mdb')]]);
  assert.equal(manifest.realms.map(({ subdomain, shard }) => [subdomain, shard]), [['north', 0], ['south', 1]]);
  assert.is(runManage(['restore', '--from', backupDir], { PARLEY_DATA_DIR: restoredDir }).status, 0);
  const again = await spawnServer({ PARLEY_DATA_DIR: restoredDir, PARLEY_THREADS: '2' });
  try {
    for (const { subdomain, credentials } of owners) {
      const client = new ApiClient(again.baseUrl, credentials, `${subdomain}.localhost`);
      const stored = await client.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'topic', operand: 'backup' }] });
      assert.equal((stored.body.messages as { id: number }[]).map((message) => message.id), sent.get(subdomain), `${subdomain}'s messages are restored`);
    }
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
  // A manifest naming a file elsewhere for a shard is refused, not followed.
  const manifestFile = join(backupDir, 'manifest.json');
  const written = readFileSync(manifestFile, 'utf8');
  writeFileSync(manifestFile, written.replace(JSON.stringify(join('shards', '1', 'parley.mdb')), JSON.stringify(join('..', 'restored', 'parley.mdb'))));
  const elsewhere = runManage(['verify', '--from', backupDir], {});
  assert.is(elsewhere.status, 2);
  assert.match(elsewhere.stderr, /is not where shard 1 is kept/);
  writeFileSync(manifestFile, written);
  // Shard 1's file damaged: verify names it.
  const file = join(backupDir, 'shards', '1', 'parley.mdb');
  const bytes = readFileSync(file);
  bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
  writeFileSync(file, bytes);
  const damaged = runManage(['verify', '--from', backupDir], {});
  assert.is(damaged.status, 2);
  assert.match(damaged.stderr, /shards\/1\/parley\.mdb does not match its checksum/);
  for (const dir of [dataDir, dirname(backupDir), dirname(restoredDir), dirname(exportDir)]) rmSync(dir, { recursive: true, force: true });
});

test.run();
