// Backup, verification and restore of a data directory. A backup is taken while the server runs:
// LMDB copies the store from one read transaction (a consistent moment, compacted), writes go on
// meanwhile; uploads are copied after it. A manifest records the format, each realm's digest and
// the store file's checksum, so that `verify` can tell a whole backup from a damaged one.
import { createHash } from 'node:crypto';
import { cpSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { realmDigest } from '../store/realmData.js';
import { Store } from '../store/store.js';

export const BACKUP_FORMAT = 1;
export const STORE_FILE = 'parley.mdb';
const UPLOADS = 'uploads';
const MANIFEST = 'manifest.json';

export interface Manifest {
  format: number;
  createdAt: string;
  /** The store's data format (see STORE_FORMAT). */
  store: { file: string; format: number; bytes: number; sha256: string };
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

/** A store file's data format, and each realm in it with its digest. */
async function contentsOf(file: string): Promise<{ format: number; realms: Manifest['realms'] }> {
  const store = new Store(file);
  try {
    return { format: store.format, realms: [...store.realms.getRange()].map(({ value }) => ({ id: value.id, subdomain: value.subdomain, digest: realmDigest(store, value.id) })) };
  } finally {
    await store.close();
  }
}

/** Copies `dataDir` (a server may be running on it) into the empty directory `to`. */
export async function backup(dataDir: string, to: string): Promise<Manifest> {
  const source = join(dataDir, STORE_FILE);
  if (!existsSync(source)) throw new BackupError(`no store in ${dataDir}`);
  if (!emptyOrAbsent(to)) throw new BackupError(`${to} is not empty`);
  mkdirSync(to, { recursive: true });
  const env = open({ path: source, readOnly: true });
  try {
    await env.backup(join(to, STORE_FILE), true);
  } finally {
    await env.close();
  }
  if (existsSync(join(dataDir, UPLOADS))) cpSync(join(dataDir, UPLOADS), join(to, UPLOADS), { recursive: true });
  const copy = join(to, STORE_FILE);
  const { format, realms } = await contentsOf(copy);
  const manifest: Manifest = { format: BACKUP_FORMAT, createdAt: new Date().toISOString(), store: { file: STORE_FILE, format, bytes: statSync(copy).size, sha256: await sha256(copy) }, realms };
  writeFileSync(join(to, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Checks a backup against its manifest: the store file's size and checksum, then every realm's digest. */
export async function verify(from: string): Promise<Manifest> {
  const manifestFile = join(from, MANIFEST);
  if (!existsSync(manifestFile)) throw new BackupError(`${from} has no ${MANIFEST}: not a backup`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`backup format ${manifest.format}; this version reads format ${BACKUP_FORMAT}`);
  const file = join(from, manifest.store.file);
  if (!existsSync(file)) throw new BackupError(`${manifest.store.file} is missing`);
  if (statSync(file).size !== manifest.store.bytes || (await sha256(file)) !== manifest.store.sha256) throw new BackupError(`${manifest.store.file} does not match its checksum: the backup is damaged`);
  const { realms } = await contentsOf(file);
  if (JSON.stringify(realms) !== JSON.stringify(manifest.realms)) throw new BackupError('the realms in the store differ from the manifest');
  return manifest;
}

/** Restores a verified backup into `dataDir`, which must be empty (or not exist yet). */
export async function restore(from: string, dataDir: string): Promise<Manifest> {
  if (!emptyOrAbsent(dataDir)) throw new BackupError(`${dataDir} is not empty; restore goes into an empty data directory`);
  const manifest = await verify(from);
  mkdirSync(dataDir, { recursive: true });
  cpSync(join(from, manifest.store.file), join(dataDir, STORE_FILE));
  if (existsSync(join(from, UPLOADS))) cpSync(join(from, UPLOADS), join(dataDir, UPLOADS), { recursive: true });
  return manifest;
}
