// What every server process sets up, whichever thread runs what: the stores' and the file storage's
// opening, and the guard on promise rejections nobody handled. (Which process holds the data
// directory: claims.ts.)
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './ops/log.js';
import { LocalFileStorage } from './files/local.js';
import { S3FileStorage } from './files/s3.js';
import type { FileStorage } from './files/storage.js';
import { newIdCountersShare, SharedIdCounters } from './store/idCounters.js';
import { shardFile, shardRealms, shardsOnDisk } from './store/shards.js';
import { Store, STORE_FORMAT } from './store/store.js';

/** The data directory's store (shard 0), when one thread holds every realm. */
export function openStore(config: Config): Store {
  refuseShards(config);
  return openShard(config, 0);
}

/** Shard `index` of the data directory; with `counters`, it takes its IDs from those the process's
 * shards share (else from its own), and has raised them to those it recorded. */
export function openShard(config: Config, index: number, counters?: SharedIdCounters): Store {
  const file = shardFile(config.dataDir, index);
  mkdirSync(dirname(file), { recursive: true });
  // Building the search index of an older data directory takes a while on a large one: told as it goes.
  const store = new Store(file, { progress: (indexed, total) => config.log.info({ indexed, total, shard: index }, 'indexing messages for search'), sync: config.storeSync, counters });
  if (store.migratedFrom !== null) config.log.info({ from: store.migratedFrom, to: STORE_FORMAT, shard: index }, 'data directory migrated to the current format');
  counters?.opened((kind) => store.lastId(kind), store.realms.getKeysCount());
  return store;
}

/** How many shards a process opens: those on disk, and as many as it `asks` (a server, or a CLI
 * command placing a realm: PARLEY_REALM_THREADS), whichever is more. */
export const shardCount = (config: Config, asks = config.realmThreads): number => Math.max(asks, shardsOnDisk(config.dataDir));

/** Every shard of the data directory in this thread (the management CLI on a stopped server): those
 * on disk, and (`placing`: for a new realm) as many as PARLEY_REALM_THREADS asks. */
export function openShards(config: Config, { placing = false } = {}): Store[] {
  const counters = new SharedIdCounters(newIdCountersShare());
  return Array.from({ length: shardCount(config, placing ? config.realmThreads : 1) }, (_, index) => openShard(config, index, counters));
}

/** Stops a server that would hold every realm on one store from opening a data directory with
 * realms in other shards too (they would not be served). */
function refuseShards(config: Config): void {
  const shards = shardsOnDisk(config.dataDir);
  for (let index = 1; index < shards; index++) {
    if (shardRealms(config.dataDir, index).length > 0) {
      throw new Error(`${config.dataDir} has realms in shard ${index}: run it with PARLEY_THREADS of 2 or more, standalone, which serves every shard`);
    }
  }
}

/** Where uploads and exports are kept: S3 when it is configured, else the data directory. */
export async function openFiles(config: Config): Promise<FileStorage> {
  return config.s3 ? S3FileStorage.connect(config.s3) : new LocalFileStorage(config.dataDir);
}

/** Rejections nobody handled since the process started (a bug somewhere: logged and counted, and
 * the server goes on — one failed promise must not take every realm, queue and socket down). */
export const unhandled = { rejections: 0 };
let guarded = false;

/** Counts and logs (with the first server's log) the promise rejections nobody handled. */
export function guardRejections(log: Logger): void {
  if (guarded) return;
  guarded = true;
  process.on('unhandledRejection', (reason) => {
    unhandled.rejections++;
    // lmdb-js also rejects a promise of its own for a batch whose commit failed; the write itself
    // was already answered with STORAGE_UNAVAILABLE and logged.
    if ((reason as { commitError?: unknown } | null)?.commitError !== undefined) return;
    log.error({ err: reason }, 'unhandled promise rejection (the server goes on)');
  });
}
