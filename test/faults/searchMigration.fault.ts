// Full-text search's index for an older data directory: built at start, with progress in the log,
// and anew by the management CLI (`manage rebuild-search-index`, a process of its own, which takes
// a second: why this is here rather than in test/search.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from '../helpers/client.js';
import { runManage } from '../helpers/process.js';
import { assertMatchesReference } from '../helpers/reference.js';
import { capturedLog } from '../helpers/logs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { STORE_FORMAT } from '../../src/store/store.js';

async function send(client: ApiClient, to: string, topic: string, content: string): Promise<number> {
  const response = await client.post('/messages', { type: 'stream', to, topic, content });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** The IDs of the messages a search finds, oldest first. */
async function words(client: ApiClient, text: string): Promise<number[]> {
  const response = await client.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [['search', text]] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages', response.body);
  return (response.body.messages as { id: number }[]).map((message) => message.id);
}

/** A server on a data directory kept across restarts, logging as JSON into `lines`. */
async function serverOn(dataDir: string, lines: Record<string, unknown>[]): Promise<TestServer> {
  return startTestServer({ dataDir, log: capturedLog('info', lines).log });
}

/** Takes the search index out of a stopped server's data directory, as a format it predates. */
async function withoutIndex(dataDir: string, format: number | undefined): Promise<void> {
  const env = open({ path: join(dataDir, 'parley.mdb'), maxDbs: 64 });
  for (const name of ['searchChunks', 'searchWords']) await env.openDB({ name }).clearAsync();
  const meta = env.openDB({ name: 'meta' });
  if (format === undefined) await meta.remove('storeFormat');
  else await meta.put('storeFormat', format);
  await env.close();
}

test('an older data directory is indexed at start, with progress in the log; the CLI rebuilds the index', async () => {
  const lines: Record<string, unknown>[] = [];
  const first = await serverOn(mkdtempSync(join(tmpdir(), 'parley-test-')), lines);
  const dataDir = first.config.dataDir;
  const hamlet = await first.as('hamlet@zulip.com');
  const id = await send(hamlet, 'Verona', 'archive', 'gazelle migration');
  await first.parley.close();

  await withoutIndex(dataDir, 2);
  let again = await serverOn(dataDir, lines);
  assert.equal(await words(await again.as('hamlet@zulip.com'), 'gazelle'), [id]);
  const progress = lines.filter((line) => line.msg === 'indexing messages for search');
  assert.ok(progress.length > 0 && progress.at(-1)!.indexed === progress.at(-1)!.total, JSON.stringify(progress));
  assert.ok(lines.some((line) => line.msg === 'data directory migrated to the current format' && line.from === 2 && line.to === STORE_FORMAT));
  await again.parley.close();

  // A current directory whose index was lost: the CLI builds it anew.
  await withoutIndex(dataDir, STORE_FORMAT);
  const rebuilt = runManage(['rebuild-search-index'], { PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: 'warn' });
  assert.is(rebuilt.status, 0, rebuilt.stderr);
  const indexed = (JSON.parse(rebuilt.stdout.trim().split('\n').at(-1)!) as { indexed: number }).indexed;
  assert.ok(indexed >= 5, rebuilt.stdout);
  assert.match(rebuilt.stderr, new RegExp(`indexed ${indexed} of ${indexed} messages`));
  again = await serverOn(dataDir, lines);
  assert.equal(await words(await again.as('hamlet@zulip.com'), 'gazelle'), [id]);
  await again.parley.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test.run();
