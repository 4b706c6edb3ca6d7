// A commit LMDB fails (the disk refuses its pages) is told to the store before the next write
// batch runs: the store forgets what memory holds of rows (caches of the rolled-back batch: a
// search term's last chunk, a conversation's rows) when the failed batch's promise is rejected,
// and a realm reloads its memory then. Were the next batch to run first, it would write on top of
// caches the failed commit left behind (a wrong message ID in the search index, say). lmdb-js
// starts the next transaction while the last is still being flushed: this checks the order it
// keeps, under a file-size limit (ulimit -f) on a store that flushes as a server's does.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { underFileSizeLimit } from '../helpers/process.js';

const fixture = new URL('../fixtures/failedCommit.js', import.meta.url).pathname;

test("a failed commit's write is refused before the batch after it runs", () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-failed-commit-'));
  try {
    // 16 MiB: a few one-megabyte writes commit first.
    const run = spawnSync(...underFileSizeLimit(16_384, [process.execPath, fixture, join(dir, 'store.mdb')]), { encoding: 'utf8', timeout: 60_000 });
    assert.is(run.status, 0, run.stderr);
    const { failedAt, told } = JSON.parse(run.stdout) as { failedAt: number | null; told: string[] };
    assert.ok(failedAt !== null && failedAt > 0, `a commit failed after some succeeded: ${run.stdout}`);
    assert.equal(told, [`write ${failedAt} refused: StorageError`, `batch ${failedAt + 1} ran`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
