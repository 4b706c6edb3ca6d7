// Online backup under write load: `manage backup` copies a running server's data directory while
// senders keep writing; the backup verifies, restores into an empty directory, and a server started
// on the restore holds every message acknowledged before the backup began, with the realm in the
// state the manifest records. A damaged backup fails verification; restore never overwrites data.
import { writeFileSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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
  const file = join(backupDir, 'parley.mdb');
  const bytes = readFileSync(file);
  bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
  writeFileSync(file, bytes);
  const damaged = runManage(['verify', '--from', backupDir], {});
  assert.is(damaged.status, 2);
  assert.match(damaged.stderr, /does not match its checksum: the backup is damaged/);
  for (const dir of [dataDir, dirname(backupDir)]) rmSync(dir, { recursive: true, force: true });
});

test.run();
