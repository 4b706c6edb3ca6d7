// The server as an operator runs it: graceful shutdown on SIGTERM keeps every user and key, a
// crash right after an acknowledged write loses nothing, the management CLI creates realms and
// users for production (which never seeds), the Host header selects the realm, and one process at a
// time holds a data directory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient, rawRequest } from '../helpers/client.js';
import { devClient, tempDataDir as tempDataDir_ } from '../helpers/operator.js';
import { runManage, spawnServer } from '../helpers/process.js';

const tempDataDir = () => tempDataDir_('parley-lifecycle-');

test('SIGTERM stops the server cleanly (exit 0); after a restart every user and key still works', async () => {
  const dataDir = tempDataDir();
  try {
    const first = await spawnServer({ PARLEY_DATA_DIR: dataDir });
    const fetched = await new ApiClient(first.baseUrl).post('/dev_fetch_api_key', { username: 'hamlet@zulip.com' });
    const hamlet = new ApiClient(first.baseUrl, { email: 'hamlet@zulip.com', apiKey: String(fetched.body.api_key) });
    const created = await (await adminClient(first.baseUrl)).post('/users', { email: 'new@zulip.com', full_name: 'New Person', password: 'secret' });
    assert.is(created.status, 200);
    first.child.kill('SIGTERM');
    assert.is(await first.exited, 0);

    const second = await spawnServer({ PARLEY_DATA_DIR: dataDir });
    const again = new ApiClient(second.baseUrl, hamlet.credentials);
    const me = await again.get('/users/me');
    assert.is(me.status, 200);
    assert.is(me.body.email, 'hamlet@zulip.com');
    const newUser = await new ApiClient(second.baseUrl).post('/dev_fetch_api_key', { username: 'new@zulip.com' });
    assert.is(newUser.body.user_id, created.body.user_id, 'the user created before the restart exists, not re-seeded');
    second.child.kill('SIGTERM');
    assert.is(await second.exited, 0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const adminClient = (baseUrl: string): Promise<ApiClient> => devClient(baseUrl, 'iago@zulip.com');

test('a write acknowledged just before a crash (SIGKILL) is still there after the restart; its queues are not', async () => {
  const dataDir = tempDataDir();
  try {
    const first = await spawnServer({ PARLEY_DATA_DIR: dataDir });
    const iago = await adminClient(first.baseUrl);
    const queue = await iago.post('/register');
    const regenerated = await iago.post('/users/me/api_key/regenerate');
    const created = await iago.post('/users', { email: 'durable@zulip.com', full_name: 'Durable', password: 'secret-pw' });
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await spawnServer({ PARLEY_DATA_DIR: dataDir });
    const renewed = new ApiClient(second.baseUrl, { email: 'iago@zulip.com', apiKey: String(regenerated.body.api_key) });
    assert.is((await renewed.get('/users/me')).status, 200);
    const lost = await renewed.get('/events', { queue_id: String(queue.body.queue_id), dont_block: true });
    assert.is(lost.body.code, 'BAD_EVENT_QUEUE_ID', 'queues are not kept across a crash: clients register again');
    const durable = await new ApiClient(second.baseUrl).post('/dev_fetch_api_key', { username: 'durable@zulip.com' });
    assert.is(durable.body.user_id, created.body.user_id);
    second.child.kill('SIGTERM');
    assert.is(await second.exited, 0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('production: no seed; the CLI creates realms and users; the Host header selects the realm', async () => {
  const dataDir = tempDataDir();
  const env = { PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production', PARLEY_EXTERNAL_HOST: 'chat.test' };
  try {
    const acme = runManage(['create-realm', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss'], env);
    assert.is(acme.status, 0, acme.stderr);
    const root = runManage(['create-realm', '--subdomain', '', '--name', 'Root', '--owner-email', 'root@chat.test', '--owner-name', 'Root'], env);
    assert.is(root.status, 0, root.stderr);
    const clash = runManage(['create-realm', '--subdomain', 'acme', '--name', 'Again', '--owner-email', 'x@acme.test', '--owner-name', 'X'], env);
    assert.is(clash.status, 2);
    assert.match(clash.stderr, /exists/);
    const member = runManage(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--role', 'guest'], env);
    assert.is(member.status, 0, member.stderr);
    const duplicate = runManage(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann'], env);
    assert.is(duplicate.status, 2);
    assert.match(duplicate.stderr, /already in use/);
    const badRole = runManage(['create-user', '--realm', 'acme', '--email', 'x@acme.test', '--name', 'X', '--role', 'toString'], env);
    assert.is(badRole.status, 2);
    const key = runManage(['api-key', '--realm', 'acme', '--email', 'ann@acme.test'], env).stdout.trim();
    assert.is(key, JSON.parse(member.stdout).api_key);

    const server = await spawnServer(env);
    const ann = { Authorization: `Basic ${Buffer.from(`ann@acme.test:${key}`).toString('base64')}` };
    const inAcme = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/me', headers: { ...ann, Host: 'acme.chat.test' } });
    assert.is(inAcme.status, 200);
    assert.is(inAcme.body.role, 600);
    assert.is(inAcme.body.full_name, 'Ann');
    const inRoot = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/me', headers: { ...ann, Host: 'chat.test' } });
    assert.is(inRoot.status, 401, "Ann's key is not valid in another realm");
    const settings = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/server_settings', headers: { Host: 'acme.chat.test' } });
    assert.is(settings.body.realm_name, 'Acme');
    assert.is(settings.body.realm_url, 'https://acme.chat.test');
    const devFetch = await rawRequest(server.baseUrl, { method: 'POST', path: '/api/v1/dev_fetch_api_key?username=ann%40acme.test', headers: { Host: 'acme.chat.test' } });
    assert.is(devFetch.status, 400, 'production refuses the development key fetch');

    const busy = runManage(['list-realms'], env);
    assert.is(busy.status, 2, 'the CLI refuses a data directory a running server holds');
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0);
    const regenerated = runManage(['regenerate-api-key', '--realm', 'acme', '--email', 'ann@acme.test'], env);
    assert.is(regenerated.status, 0);
    assert.is.not(regenerated.stdout.trim(), key);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a data directory is held by one process: a live holder refuses a server and the CLI, even with its file made to look stale; a dead one is taken over, and a stop lets go', async () => {
  const dataDir = tempDataDir();
  const env = { PARLEY_DATA_DIR: dataDir };
  const holder = join(dataDir, 'parley.pid');
  try {
    // This test's own process holds it (a CLI or a server still starting would).
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(holder, String(process.pid));
    const refused = await spawnServer(env).then(
      async (server) => {
        server.child.kill('SIGTERM');
        await server.exited;
        return 'started';
      },
      (error: unknown) => String(error),
    );
    assert.is.not(refused, 'started', 'a server does not start on a directory another process holds');
    const cli = runManage(['list-realms'], env);
    assert.is(cli.status, 2);
    assert.match(cli.stderr, new RegExp(`in use by process ${process.pid}`));
    // A holder that no longer runs (kill -9) is taken over.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(holder, String(gone));
    const server = await spawnServer(env);
    assert.is(readFileSync(holder, 'utf8').split(' ')[0], String(server.child.pid), 'the server holds it now');
    assert.is(runManage(['list-realms'], env).status, 2, 'the CLI refuses it while the server runs');
    // Its claim holds while it runs even should the file look left behind (as when two processes
    // take over a stale file at once: the one that proceeds holds it, and the other sees it stale).
    const claim = readFileSync(holder, 'utf8');
    writeFileSync(holder, String(gone));
    const racing = runManage(['list-realms'], env);
    assert.equal([racing.status, /in use by another process/.test(racing.stderr)], [2, true], racing.stderr);
    writeFileSync(holder, claim);
    server.child.kill('SIGTERM');
    assert.is(await server.exited, 0);
    assert.not.ok(existsSync(holder), 'a stop lets it go');
    // A holder whose ID a later process has (after a power cut, say) is told apart by its start time.
    writeFileSync(holder, `${process.pid} 1`);
    const again = await spawnServer(env);
    again.child.kill('SIGTERM');
    assert.is(await again.exited, 0);
    const listed = runManage(['list-realms'], env);
    assert.is(listed.status, 0, listed.stderr);
    assert.not.ok(existsSync(holder), 'and so does the CLI');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
