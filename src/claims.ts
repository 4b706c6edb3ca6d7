// Claim files: which process holds a data directory (a server, or the management CLI), and whether
// a backup or a realm's move runs in it. On Linux a claim is also a name in the abstract socket
// namespace that its holder listens on (as the port the I/O threads share is, threads/claimPort.ts).
import { createHash, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';

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
 * same stale file at once only one proceeds. Returns what lets it go: the file (while it still
 * holds this claim) and the name; called again, it does nothing. */
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

/** Holds an abstract name standing for the claim file (`holdAbstractName`; this process may hold it
 * for several claims). Answers the name, null when another process holds it, or undefined where
 * there are no such names (the claim file alone then says who holds it). The name is the file's
 * path and its directory's device and inode, hashed (a socket's name takes at most 107 bytes): the
 * same path on another volume, in a mount namespace of its own that shares the network's, is
 * another name. */
function holdName(file: string): string | null | undefined {
  const directory = realpathSync(dirname(file));
  const { dev, ino } = statSync(directory);
  const name = abstractName(`${join(directory, basename(file))}:${dev}:${ino}`);
  const held = heldNames.get(name);
  if (held) {
    held.claims++;
    return name;
  }
  const server = holdAbstractName(name);
  if (!server) return server;
  heldNames.set(name, { server, claims: 1 });
  return name;
}

const abstractName = (text: string): string => `parley-claim-${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;

/** Listens on `name` in Linux's abstract socket namespace (no file; the kernel lets it go when the
 * process ends, however it ends), which one process at a time can. Answers the server (closing it
 * lets the name go), null when another process holds the name, or undefined where no name can be
 * listened on (not Linux; a Node.js that binds none, a sandbox that forbids Unix sockets: a name of
 * this process's own tells). Nobody connects; should something, it is let go at once. The server
 * does not keep the process alive. */
export function holdAbstractName(name: string): Server | null | undefined {
  if (process.platform !== 'linux') return undefined;
  const listen = (path: string): Server | undefined => {
    const server = createServer((socket) => socket.destroy());
    server.on('error', () => undefined);
    // A path's bind is done by the time listen returns: `listening` says whether it took.
    server.listen({ path: `\0${path}` });
    server.unref();
    return server.listening ? server : undefined;
  };
  const server = listen(name);
  if (server) return server;
  const probe = listen(`parley-probe-${process.pid}-${randomUUID()}`);
  probe?.close();
  return probe ? null : undefined;
}

/** One claim lets go of the name; the last closes it. */
function letNameGo(name: string): void {
  const held = heldNames.get(name);
  if (!held || --held.claims > 0) return;
  held.server.close();
  heldNames.delete(name);
}

