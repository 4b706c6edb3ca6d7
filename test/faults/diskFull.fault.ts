// A full disk under a running server: writes are answered 507 STORAGE_UNAVAILABLE naming the
// cause, the process stays up and keeps serving reads, writes work again once space is freed, and
// nothing acknowledged is lost — across a crash afterwards too. As root the data directory is a
// small tmpfs filled by a file beside it; otherwise the server runs under a file-size limit
// (ulimit -f) and space is freed by deleting messages inside the store.
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertMatchesComponent } from '../helpers/reference.js';
import { rawRequest, type ApiClient } from '../helpers/client.js';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';

// FAULT_DISK_MODE=ulimit tries the path taken without root.
const asRoot = process.env.FAULT_DISK_MODE !== 'ulimit' && process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;
const TMPFS_MB = 24;
/** Without root: the largest file the server may write, in 1,024-byte blocks (bash's ulimit -f). */
const FILE_LIMIT_BLOCKS = 40_000;
const content = (i: number) => `${'x'.repeat(8000)} ${i}`;

/** Sends messages until the server refuses one; returns the acknowledged IDs and the refusal. */
async function fillUntilRefused(client: ApiClient, limit = 5000) {
  const acknowledged: number[] = [];
  for (let i = 0; i < limit; i++) {
    const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: `fill ${i % 10}`, content: content(i) });
    if (response.status !== 200) return { acknowledged, refusal: response };
    acknowledged.push(Number(response.body.id));
  }
  throw new Error(`no refusal after ${limit} messages`);
}

async function idsIn(client: ApiClient): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let anchor: number | string = 'oldest'; ; ) {
    const page = await client.get('/messages', { narrow: [{ operator: 'channel', operand: 'Verona' }], anchor, num_before: 0, num_after: 1000, include_anchor: false, apply_markdown: false });
    const messages = page.body.messages as { id: number }[];
    for (const message of messages) ids.add(message.id);
    if (page.body.found_newest || messages.length === 0) return ids;
    anchor = messages.at(-1)!.id;
  }
}

test('a full disk: 507 with its cause, reads go on, writes resume once space is free, nothing acknowledged is lost', async () => {
  const dir = tempDataDir('parley-diskfull-');
  const dataDir = join(dir, 'data');
  if (asRoot) execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_MB}m`, 'tmpfs', dir]);
  const started = Date.now();
  let server: ServerProcess | undefined;
  try {
    const env = { PARLEY_DATA_DIR: dataDir };
    server = asRoot ? await spawnServer(env) : await spawnServer(env, { fileSizeLimitBlocks: FILE_LIMIT_BLOCKS });
    const iago = await devClient(server.baseUrl, 'iago@zulip.com');
    const hamlet = await devClient(server.baseUrl, 'hamlet@zulip.com');
    // Leave a few megabytes free, so that the store, not the filler, meets the end of the disk.
    if (asRoot) writeFileSync(join(dir, 'filler'), Buffer.alloc((TMPFS_MB - 8) * 1024 * 1024));
    const { acknowledged, refusal } = await fillUntilRefused(iago);
    assert.is(refusal.status, 507, JSON.stringify(refusal.body));
    assertMatchesComponent('CodedError', refusal.body);
    assert.is(refusal.body.code, 'STORAGE_UNAVAILABLE');
    assert.match(String(refusal.body.msg), /could not save the change \((No space left on device|Input\/output error|File too large)\)/);
    // Still up, still reading, and refusing again rather than crashing; alive but not ready.
    assert.is((await hamlet.get('/users/me')).status, 200);
    assert.is((await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'again', content: content(-1) })).status, 507);
    const probe = (path: string) => rawRequest(server!.baseUrl, { method: 'GET', path });
    assert.is((await probe('/health')).status, 200);
    const notReady = await probe('/ready');
    assert.equal([notReady.status, notReady.body.code], [503, 'STORAGE_UNAVAILABLE']);
    const seen = await idsIn(hamlet);
    assert.ok(acknowledged.every((id) => seen.has(id)), 'every acknowledged message can be read');

    // Free space: the filler on the tmpfs, or messages inside the store under a file-size limit.
    if (asRoot) rmSync(join(dir, 'filler'));
    else for (const id of acknowledged.splice(0, 200)) assert.is((await iago.delete(`/messages/${id}`)).status, 200);
    const after = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'after', content: 'space again' });
    assert.is(after.status, 200, JSON.stringify(after.body));
    acknowledged.push(Number(after.body.id));
    assert.is((await probe('/ready')).status, 200, 'ready again once a write is saved');

    // A crash now loses nothing that was acknowledged, and IDs are never handed out twice.
    server.child.kill('SIGKILL');
    await server.exited;
    server = asRoot ? await spawnServer(env) : await spawnServer(env, { fileSizeLimitBlocks: FILE_LIMIT_BLOCKS });
    const hamletAgain = await devClient(server.baseUrl, 'hamlet@zulip.com');
    const survived = await idsIn(hamletAgain);
    const missing = acknowledged.filter((id) => !survived.has(id));
    assert.equal(missing, [], 'acknowledged messages missing after the restart');
    const next = await (await devClient(server.baseUrl, 'iago@zulip.com')).post('/messages', { type: 'stream', to: 'Verona', topic: 'next', content: 'after the crash' });
    assert.ok(Number(next.body.id) > Math.max(...acknowledged), 'a new message gets a new ID');
    report('disk full', {
      mode: asRoot ? `tmpfs ${TMPFS_MB} MB` : `ulimit -f ${FILE_LIMIT_BLOCKS}`,
      'messages acknowledged before full': acknowledged.length,
      refusal: `${refusal.status} ${String(refusal.body.code)}`,
      lost: missing.length,
      seconds: ((Date.now() - started) / 1000).toFixed(1),
    });
  } finally {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    if (asRoot) execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
