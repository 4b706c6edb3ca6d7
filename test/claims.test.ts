// Claim files (src/claims.ts): one process at a time holds a data directory (or runs a backup, or
// moves a realm). On Linux a claim is also an abstract socket name its holder listens on; a claim
// refused lets go of the name it took, so another process may claim once the holder is gone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimFile } from '../src/claims.js';

const claims = new URL('../src/claims.js', import.meta.url).href;

/** Claims `file` in a process of its own, and lets go: what came of it. */
function claimElsewhere(file: string): string {
  const script = `import { claimFile } from '${claims}'; try { claimFile(process.argv[1], (holder) => new Error(holder))(); console.log('claimed'); } catch (error) { console.log('refused by ' + error.message); }`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script, file], { encoding: 'utf8' }).stdout.trim();
}

test('a claim refused by a live holder lets go of what it took: once the holder is gone, another process claims it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-claims-'));
  const file = join(dir, 'parley.pid');
  try {
    // The process that started this one runs: it holds the file.
    writeFileSync(file, String(process.ppid));
    assert.throws(() => claimFile(file, (holder) => new Error(holder)), (error: Error) => error.message === `process ${process.ppid}`);
    assert.is(claimElsewhere(file), `refused by process ${process.ppid}`);
    rmSync(file);
    assert.is(claimElsewhere(file), 'claimed', 'nothing of the refused claim is left in this process');
    // Held here, it is refused elsewhere even with its file gone.
    const release = claimFile(file, (holder) => new Error(holder));
    rmSync(file);
    assert.match(claimElsewhere(file), /^refused by another process/);
    release();
    assert.is(claimElsewhere(file), 'claimed', 'let go');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
