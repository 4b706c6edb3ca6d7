// What every server process sets up, whichever thread runs what: the store's and the file storage's
// opening, the guard on promise rejections nobody handled, and the file that says a server has the
// data directory open.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './ops/log.js';
import { LocalFileStorage } from './files/local.js';
import { S3FileStorage } from './files/s3.js';
import type { FileStorage } from './files/storage.js';
import { Store, STORE_FORMAT } from './store/store.js';

/** The file that tells the management CLI a server has this data directory open. */
export const pidFile = (dataDir: string): string => join(dataDir, 'parley.pid');

export function openStore(config: Config): Store {
  mkdirSync(config.dataDir, { recursive: true });
  // Building the search index of an older data directory takes a while on a large one: told as it goes.
  const store = new Store(join(config.dataDir, 'parley.mdb'), { progress: (indexed, total) => config.log.info({ indexed, total }, 'indexing messages for search'), sync: config.storeSync });
  if (store.migratedFrom !== null) config.log.info({ from: store.migratedFrom, to: STORE_FORMAT }, 'data directory migrated to the current format');
  return store;
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
