// What every server process sets up, whichever thread runs what: the stores' and the file storage's
// opening, the guard on promise rejections nobody handled, and the claim files that say which
// process holds the data directory (and whether a backup or a realm's move runs).
import { createHash, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './ops/log.js';
import { LocalFileStorage } from './files/local.js';
import { S3FileStorage } from './files/s3.js';
import type { FileStorage } from './files/storage.js';
import { newIdCountersShare, SharedIdCounters } from './store/idCounters.js';
import { shardFile, shardRealms, shardsOnDisk } from './store/shards.js';
import { Store, STORE_FORMAT } from './store/store.js';

/** The file that says which process holds a data directory (a server, or the management CLI). */
export const pidFile = (dataDir: string): string => join(dataDir, 'parley.pid');

export class DataDirInUse extends Error {}

/** When a process started, in clock ticks since boot (Linux's /proc/<pid>/stat, field 22): with its
 * ID it names the process, where an ID alone may be a later process's. '' where it cannot be read. */
function startTimeOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** Whether the process a pid file names runs: its ID, and (where it was recorded) its start time. */
function holds(record: string): boolean {
  const [id = '', started = ''] = record.trim().split(' ');
  const pid = Number(id);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return started === '' || startTimeOf(pid) === started;
}

/** A file's text, or undefined when it is not there (any more). */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Claims the data directory for this process before it opens any store, so that a server and the
 * management CLI (or two servers) never write it at once: each would hand out IDs from its own
 * counters. Returns what lets it go. */
export function claimDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  return claimFile(pidFile(dataDir), (holder) => new DataDirInUse(`${dataDir} is in use by ${holder} (a Parley server, or the management CLI): stop it first`));
}

/** A backup copies the shards at different moments: while a realm moves between them (`manage
 * move-realm`) it could find the realm in none or in two. Each says it runs in a file of its own,
 * claims it, then looks for the other's (so of the two starting at once, one sees the other). */
export const movingFile = (dataDir: string): string => join(dataDir, 'parley.moving');
export const backingUpFile = (dataDir: string): string => join(dataDir, 'parley.backup');

/** The process that holds a claim file (its ID), while it runs. */
export function holderOf(file: string): number | undefined {
  const record = readIfThere(file);
  return record !== undefined && holds(record) ? Number(record.split(' ')[0]) : undefined;
}

/** Claims `file` for this process (refused with `inUse(holder)`, "process <ID>" or "another
 * process", while another holds it). The file (this process's ID and start time) is written whole,
 * then linked into place, which fails if one is there: no process reads a half-written claim. One
 * left by a process that no longer runs (kill -9, a crash, its ID since taken by another program)
 * is taken over, as is one of this process's own (servers the tests start in turn). On Linux the
 * claim is first a name the process listens on (`holdName`), so of two processes taking over the
 * same stale file at once only one proceeds. Returns what lets it go (the file, while it still
 * holds this claim). */
export function claimFile(file: string, inUse: (holder: string) => Error): () => void {
  const record = `${process.pid} ${startTimeOf(process.pid)}`;
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, record);
  let held: ReturnType<typeof holdName>;
  try {
    held = holdName(file);
    if (held === null) {
      const holder = holderOf(file);
      throw inUse(holder === undefined ? 'another process (taking it over, or holding its socket name)' : `process ${holder}`);
    }
    for (;;) {
      try {
        linkSync(draft, file);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          if (readIfThere(file) === record) rmSync(file, { force: true });
          if (held) letNameGo(held);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readIfThere(file);
      if (holder === undefined) continue;
      if (!holder.startsWith(`${process.pid} `) && holds(holder)) throw inUse(`process ${holder.split(' ')[0]}`);
      rmSync(file, { force: true });
    }
  } catch (error) {
    if (held) letNameGo(held);
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The names this process holds, each by a server listening on it, for so many of its claims. */
const heldNames = new Map<string, { server: Server; claims: number }>();

/** Holds a name standing for the claim file (Linux's abstract socket namespace: no file, and the
 * kernel lets it go when the process ends, however it ends) by listening on it; only one process
 * can (this one may hold it for several claims). Answers the name, null when another process holds
 * it, or undefined where there are no such names (not Linux, or none can be listened on here: the
 * claim file alone then says who holds it). The name is the file's path and its directory's device
 * and inode, hashed (at most 107 bytes): the same path on another volume, in a mount namespace of
 * its own that shares the network's, is another name. */
function holdName(file: string): string | null | undefined {
  if (process.platform !== 'linux') return undefined;
  const directory = realpathSync(dirname(file));
  const { dev, ino } = statSync(directory);
  const name = abstractName(`${join(directory, basename(file))}:${dev}:${ino}`);
  const held = heldNames.get(name);
  if (held) {
    held.claims++;
    return name;
  }
  const server = listenOn(name);
  if (server) {
    heldNames.set(name, { server, claims: 1 });
    return name;
  }
  // Taken, unless no name can be listened on here (a Node.js that binds none, a sandbox that
  // forbids Unix sockets): one of this process's own says which.
  const probe = listenOn(abstractName(`probe:${process.pid}:${randomUUID()}`));
  probe?.close();
  return probe ? null : undefined;
}

const abstractName = (text: string): string => `\0parley-claim-${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;

/** A server listening on an abstract name, or undefined if it cannot. Nobody connects; should
 * something, it is let go at once. It does not keep the process alive. */
function listenOn(name: string): Server | undefined {
  const server = createServer((socket) => socket.destroy());
  server.on('error', () => undefined);
  // A path's bind is done by the time listen returns: `listening` says whether it took.
  server.listen({ path: name });
  server.unref();
  return server.listening ? server : undefined;
}

/** One claim lets go of the name; the last closes it. */
function letNameGo(name: string): void {
  const held = heldNames.get(name);
  if (!held || --held.claims > 0) return;
  held.server.close();
  heldNames.delete(name);
}

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
