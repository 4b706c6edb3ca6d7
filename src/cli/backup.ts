// Backup, verification and restore of a data directory. A backup is taken while the server runs:
// LMDB copies each shard's store from one read transaction (a consistent moment, compacted; a
// realm's rows are all in its shard), writes go on meanwhile; uploads are copied after them. A
// manifest records the format, each store file's checksum and each realm's digest, so that
// `verify` can tell a whole backup from a damaged one.
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { open } from 'lmdb';
import { realmDigest } from '../store/realmData.js';
import { backingUpFile, claimFile, holderOf, movingFile } from '../claims.js';
import { shardFile, shardsOnDisk, STORE_FILE } from '../store/shards.js';
import { Store } from '../store/store.js';

/** 2: a store file a shard (ARCHITECTURE.md, "Several realm threads"); 1, before shards, had one. */
export const BACKUP_FORMAT = 2;
const UPLOADS = 'uploads';
const MANIFEST = 'manifest.json';

/** A store file in the backup: the shard it is (as in a data directory, relative to the backup),
 * its data format (see STORE_FORMAT), its size and checksum. */
interface StoreEntry {
  shard: number;
  file: string;
  format: number;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: number;
  createdAt: string;
  /** Each shard's store, shard 0's first (a shard not on disk has none). */
  stores: StoreEntry[];
  /** Every realm, with its digest and the shard that holds it. */
  realms: { id: number; subdomain: string; digest: string; shard: number }[];
}

/** A manifest of format 1: one store, no shards. */
interface ManifestBeforeShards {
  format: 1;
  createdAt: string;
  store: Omit<StoreEntry, 'shard'>;
  realms: { id: number; subdomain: string; digest: string }[];
}

export class BackupError extends Error {}

export function emptyOrAbsent(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A store file's data format, and each realm in it with its digest. Opening a store of an older
 * data format brings it up to date: a backup's own file is read from a copy (`copied`). */
async function contentsOf(file: string, shard: number, { copied = false } = {}): Promise<{ format: number; realms: Manifest['realms'] }> {
  const scratch = copied ? mkdtempSync(join(tmpdir(), 'parley-verify-')) : undefined;
  try {
    const opened = scratch ? join(scratch, STORE_FILE) : file;
    if (scratch) copyFileSync(file, opened);
    const store = new Store(opened);
    try {
      return { format: store.format, realms: [...store.realms.getRange()].map(({ value }) => ({ id: value.id, subdomain: value.subdomain, digest: realmDigest(store, value.id), shard })) };
    } finally {
      await store.close();
    }
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Copies `dataDir` (a server may be running on it) into the empty directory `to`: each shard's
 * store from one read transaction of its own (a realm's rows are all in its shard), then the
 * uploads. */
export async function backup(dataDir: string, to: string): Promise<Manifest> {
  if (!existsSync(shardFile(dataDir, 0))) throw new BackupError(`no store in ${dataDir}`);
  if (!emptyOrAbsent(to)) throw new BackupError(`${to} is not empty`);
  const backingUp = claimFile(backingUpFile(dataDir), (holder) => new BackupError(`${holder} is backing up ${dataDir}`));
  try {
    const mover = holderOf(movingFile(dataDir));
    if (mover !== undefined) throw new BackupError(`process ${mover} is moving a realm between shards (manage move-realm): back up once it is done`);
    return await copyShards(dataDir, to);
  } finally {
    backingUp();
  }
}

/** Every shard's store into `to`, then the uploads, and the manifest. */
async function copyShards(dataDir: string, to: string): Promise<Manifest> {
  const manifest: Manifest = { format: BACKUP_FORMAT, createdAt: new Date().toISOString(), stores: [], realms: [] };
  const shards = shardsOnDisk(dataDir);
  for (let shard = 0; shard < shards; shard++) {
    const source = shardFile(dataDir, shard);
    if (!existsSync(source)) continue;
    const copy = shardFile(to, shard);
    mkdirSync(dirname(copy), { recursive: true });
    const env = open({ path: source, readOnly: true });
    try {
      await env.backup(copy, true);
    } finally {
      await env.close();
    }
    // The copy, made by this version from one read transaction, is read where it is.
    const { format, realms } = await contentsOf(copy, shard);
    manifest.stores.push({ shard, file: relative(to, copy), format, bytes: statSync(copy).size, sha256: await sha256(copy) });
    manifest.realms.push(...realms);
  }
  if (existsSync(join(dataDir, UPLOADS))) cpSync(join(dataDir, UPLOADS), join(to, UPLOADS), { recursive: true });
  writeFileSync(join(to, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** A manifest as this version writes it, from either format. */
function current(read: Manifest | ManifestBeforeShards): Manifest {
  if (read.format === BACKUP_FORMAT) return read as Manifest;
  if (read.format !== 1) throw new BackupError(`backup format ${read.format}; this version reads formats 1 and ${BACKUP_FORMAT}`);
  const before = read as ManifestBeforeShards;
  return { format: 1, createdAt: before.createdAt, stores: [{ ...before.store, shard: 0 }], realms: before.realms.map((realm) => ({ ...realm, shard: 0 })) };
}

/** Checks a backup against its manifest: each store file's size and checksum, then every realm's digest. */
export async function verify(from: string): Promise<Manifest> {
  const manifestFile = join(from, MANIFEST);
  if (!existsSync(manifestFile)) throw new BackupError(`${from} has no ${MANIFEST}: not a backup`);
  const manifest = current(JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest | ManifestBeforeShards);
  const realms: Manifest['realms'] = [];
  for (const entry of manifest.stores) {
    // A shard's file is where the shard's store is in a data directory, and nowhere else.
    const file = shardFile(from, entry.shard);
    if (!Number.isInteger(entry.shard) || entry.shard < 0 || file !== join(from, entry.file)) throw new BackupError(`${entry.file} is not where shard ${entry.shard} is kept`);
    if (!existsSync(file)) throw new BackupError(`${entry.file} is missing`);
    if (statSync(file).size !== entry.bytes || (await sha256(file)) !== entry.sha256) throw new BackupError(`${entry.file} does not match its checksum: the backup is damaged`);
    realms.push(...(await contentsOf(file, entry.shard, { copied: true })).realms);
  }
  if (JSON.stringify(realms) !== JSON.stringify(manifest.realms)) throw new BackupError('the realms in the store differ from the manifest');
  return manifest;
}

/** Restores a verified backup into `dataDir`, which must be empty (or not exist yet). */
export async function restore(from: string, dataDir: string): Promise<Manifest> {
  if (!emptyOrAbsent(dataDir)) throw new BackupError(`${dataDir} is not empty; restore goes into an empty data directory`);
  const manifest = await verify(from);
  for (const entry of manifest.stores) {
    const target = shardFile(dataDir, entry.shard);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(shardFile(from, entry.shard), target);
  }
  if (existsSync(join(from, UPLOADS))) cpSync(join(from, UPLOADS), join(dataDir, UPLOADS), { recursive: true });
  return manifest;
}
