// The hand-written Zulip export of test/reference/zulip-export, damaged copies of it, and what a
// data directory holds (to show that a refused import changed nothing).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from './operator.js';
import { runManage } from './process.js';

export const zulipExportFixture = new URL('../../../test/reference/zulip-export', import.meta.url).pathname;

/** A copy of the fixture (in a directory of its own) with one JSON file edited. */
export function damagedExport(file: string, edit: (data: Record<string, unknown[]>) => void): string {
  const dir = join(tempDataDir(), 'export');
  cpSync(zulipExportFixture, dir, { recursive: true });
  const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown[]>;
  edit(data);
  writeFileSync(join(dir, file), JSON.stringify(data));
  return dir;
}

/** The realms of a data directory and the digest of one of them, as the management CLI reports. */
export function dataDirContents(dataDir: string, subdomain: string): { realms: string; digest: string } {
  return {
    realms: runManage(['list-realms'], { PARLEY_DATA_DIR: dataDir }).stdout,
    digest: runManage(['digest', '--realm', subdomain], { PARLEY_DATA_DIR: dataDir }).stdout,
  };
}
