// `manage export`: one realm of a data directory in Zulip's export format (realm/zulipExport.ts).
// The realm is read from a compacted copy of its shard's store taken in one LMDB read transaction,
// so the export is of one moment while a server goes on writing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { writeZulipExport, type ExportSummary } from '../realm/zulipExport.js';
import { Store } from '../store/store.js';
import { emptyOrAbsent } from './backup.js';
import { shardFile, shardRealms, shardsOnDisk, STORE_FILE } from '../store/shards.js';

export class ExportError extends Error {}

/** Writes the realm named by `subdomain` of the data directory (a server may be running on it)
 * into the empty directory `to`, and `to`.tar.gz. */
export async function exportRealm(dataDir: string, subdomain: string, to: string, externalHost: string): Promise<ExportSummary> {
  if (!emptyOrAbsent(to)) throw new ExportError(`${to} is not empty`);
  const tarball = `${to.replace(/\/+$/, '')}.tar.gz`;
  if (existsSync(tarball)) throw new ExportError(`${tarball} exists`);
  const scratch = mkdtempSync(join(tmpdir(), 'parley-export-'));
  try {
    const shard = Array.from({ length: shardsOnDisk(dataDir) }, (_, index) => index).find((index) => shardRealms(dataDir, index).some((realm) => realm.subdomain === subdomain));
    if (shard === undefined) throw new ExportError(`no realm '${subdomain}'`);
    const env = open({ path: shardFile(dataDir, shard), readOnly: true });
    try {
      await env.backup(join(scratch, STORE_FILE), true);
    } finally {
      await env.close();
    }
    const store = new Store(join(scratch, STORE_FILE));
    try {
      const realm = [...store.realms.getRange()].map(({ value }) => value).find((candidate) => candidate.subdomain === subdomain);
      if (!realm) throw new ExportError(`no realm '${subdomain}'`);
      return await writeZulipExport(store, realm, to, externalHost, { kind: 'full' });
    } finally {
      await store.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
