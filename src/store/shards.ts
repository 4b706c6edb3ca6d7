// Where a data directory's shards are (several realm threads, each with an LMDB environment of its
// own: ARCHITECTURE.md, "Several realm threads"): shard 0 is the directory's own parley.mdb, so a
// data directory from before shards opens as one shard; shard k beyond it is in shards/k/.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';

/** A shard's store file's name, in its directory. */
export const STORE_FILE = 'parley.mdb';

const SHARDS_DIR = 'shards';

/** The store file of shard `index` of a data directory. */
export const shardFile = (dataDir: string, index: number): string => (index === 0 ? join(dataDir, STORE_FILE) : join(dataDir, SHARDS_DIR, String(index), STORE_FILE));

/** How many shards a data directory has: 1 and the highest shard on disk, whichever is more (a
 * shard between them that is not on disk yet is opened empty). */
export function shardsOnDisk(dataDir: string): number {
  const dir = join(dataDir, SHARDS_DIR);
  if (!existsSync(dir)) return 1;
  const indexes = readdirSync(dir)
    .filter((name) => /^[1-9]\d*$/.test(name) && existsSync(join(dir, name, STORE_FILE)))
    .map(Number);
  return Math.max(0, ...indexes) + 1;
}

/** Shard `index`'s realms (ID and subdomain), read without opening its store: a server may be
 * writing it. A shard not on disk has none. */
export function shardRealms(dataDir: string, index: number): { id: number; subdomain: string }[] {
  const file = shardFile(dataDir, index);
  if (!existsSync(file)) return [];
  const env = open({ path: file, readOnly: true });
  try {
    return [...env.openDB<{ id: number; subdomain: string }, number>({ name: 'realms' }).getRange()].map(({ value }) => ({ id: value.id, subdomain: value.subdomain }));
  } finally {
    void env.close();
  }
}
