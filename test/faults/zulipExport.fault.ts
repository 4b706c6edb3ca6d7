// Export under write load: `manage export` reads a running server's realm while senders keep
// writing; the export holds every message acknowledged before it began, in files of 1,000, and
// imports whole into a fresh data directory, where each sender's messages read back as sent.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { runManage, runManageAsync, spawnServer } from '../helpers/process.js';

const SENDERS = ['owner@load.example', 'ann@load.example'];
const BEFORE_EXPORT = 2_100;

test('an export taken under write load holds every message acknowledged before it and imports whole', async () => {
  const original = tempDataDir();
  const moved = tempDataDir();
  const exports = tempDataDir();
  const exportDir = join(exports, 'load');
  const env = { PARLEY_DATA_DIR: original };
  assert.is(runManage(['create-realm', '--subdomain', 'load', '--name', 'Load', '--owner-email', SENDERS[0]!, '--owner-name', 'Owner'], env).status, 0);
  assert.is(runManage(['create-user', '--realm', 'load', '--email', SENDERS[1]!, '--name', 'Ann'], env).status, 0);
  const server = await spawnServer({ ...env, PARLEY_MODE: 'development' });
  try {
    const clients = await Promise.all(SENDERS.map((email) => devClient(server.baseUrl, email)));
    assert.is((await clients[0]!.post('/users/me/subscriptions', { subscriptions: [{ name: 'load' }], principals: SENDERS })).status, 200);
    const acknowledged: number[] = [];
    let running = true;
    const load = clients.map(async (client, worker) => {
      for (let serial = 0; running; serial++) {
        const response = await client.post('/messages', { type: 'stream', to: 'load', topic: `t${serial % 7}`, content: `w${worker} #${serial}` });
        assert.is(response.status, 200, `sender ${worker}, message ${serial}: ${JSON.stringify(response.body)}`);
        acknowledged.push(Number(response.body.id));
      }
    });
    while (acknowledged.length < BEFORE_EXPORT) await new Promise((resolve) => setTimeout(resolve, 50));
    const beforeExport = [...acknowledged];
    const started = performance.now();
    const summary = JSON.parse(await runManageAsync(['export', '--realm', 'load', '--to', exportDir], env)) as { messages: number; files: number };
    const exportSeconds = (performance.now() - started) / 1000;
    const duringExport = acknowledged.length - beforeExport.length;
    running = false;
    await Promise.all(load);

    const files = readdirSync(exportDir).filter((name) => name.startsWith('messages-')).sort();
    assert.is(files.length, summary.files);
    const exported = files.flatMap((name) => (JSON.parse(readFileSync(join(exportDir, name), 'utf8')) as { zerver_message: { id: number }[] }).zerver_message.map((message) => message.id));
    assert.ok(files.slice(0, -1).every((name) => (JSON.parse(readFileSync(join(exportDir, name), 'utf8')) as { zerver_message: unknown[] }).zerver_message.length === 1000), 'full files hold 1,000 messages');
    assert.equal(beforeExport.filter((id) => !exported.includes(id)), [], 'every message acknowledged before the export is in it');
    assert.ok(exported.every((id) => acknowledged.includes(id)), 'and nothing never acknowledged');

    const importStarted = performance.now();
    const imported = runManage(['import', '--from', exportDir, '--subdomain', 'load'], { PARLEY_DATA_DIR: moved });
    const importSeconds = (performance.now() - importStarted) / 1000;
    assert.is(imported.status, 0, imported.stderr);
    assert.is((JSON.parse(imported.stdout) as { messages: number }).messages, exported.length);
    const again = await spawnServer({ PARLEY_DATA_DIR: moved, PARLEY_MODE: 'development' });
    try {
      const reader = await devClient(again.baseUrl, SENDERS[1]!);
      const read = (await reader.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [{ operator: 'channel', operand: 'load' }] })).body.messages as { content: string; sender_email: string }[];
      assert.is(read.length, exported.length);
      for (const [worker, email] of SENDERS.entries()) {
        const serials = read.filter((message) => message.sender_email === email).map((message) => Number(/#(\d+)/.exec(message.content)![1]));
        assert.equal(serials, serials.map((_, index) => index), `${email}'s messages, in order, none missing (w${worker})`);
      }
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
    report('export under load', { 'acknowledged before': beforeExport.length, 'acknowledged while exporting': duringExport, exported: exported.length, files: files.length, 'export s': exportSeconds.toFixed(2), 'import s': importSeconds.toFixed(2) });
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    for (const dir of [original, moved, exports]) rmSync(dir, { recursive: true, force: true });
  }
});

test('export refuses an unknown realm, a directory that is not empty and a tarball that exists', () => {
  const dataDir = tempDataDir();
  const exports = tempDataDir();
  const env = { PARLEY_DATA_DIR: dataDir };
  try {
    assert.is(runManage(['create-realm', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.example', '--owner-name', 'Boss'], env).status, 0);
    const full = join(exports, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'mine');
    writeFileSync(join(exports, 'taken.tar.gz'), 'mine');
    const refusals: [string[], RegExp][] = [
      [['--to', join(exports, 'a')], /--realm is required/],
      [['--realm', 'acme'], /--to is required/],
      [['--realm', 'nowhere', '--to', join(exports, 'b')], /no realm 'nowhere'/],
      [['--realm', 'acme', '--to', full], /is not empty/],
      [['--realm', 'acme', '--to', join(exports, 'taken')], /taken\.tar\.gz exists/],
    ];
    for (const [args, message] of refusals) {
      const result = runManage(['export', ...args], env);
      assert.is(result.status, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
    assert.equal(readdirSync(exports).sort(), ['full', 'taken.tar.gz'], 'nothing was written');
    assert.is(readFileSync(join(exports, 'taken.tar.gz'), 'utf8'), 'mine');
  } finally {
    for (const dir of [dataDir, exports]) rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
