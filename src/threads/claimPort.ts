// The port the I/O threads share (PARLEY_THREADS above 2). Each listens with SO_REUSEPORT, with
// which the kernel spreads connections over every socket listening so — a second server started on
// the same port would silently take a share of them. So the port is bound exclusively for a moment
// first (a port some other server holds fails the start; port 0 picks the port to share), and for
// as long as the server runs it holds a lock named by the address and port: a socket in Linux's
// abstract namespace, which only one process can bind and which goes with the process. Another server
// starting meanwhile, before this one's threads listen, fails on the lock. (Elsewhere there is no
// such namespace, and no lock: SO_REUSEPORT does not spread connections there either.)
import { createServer, type Server } from 'node:net';

/** A port claimed for the threads to share. */
export interface ClaimedPort {
  port: number;
  /** Lets the port go, once the server no longer listens. */
  release(): void;
}

const inUse = (host: string, port: number, cause?: unknown) => new Error(`cannot listen on ${host}:${port}: the address is in use or not available`, { cause });

/** Listens on `options` and resolves with the server, or rejects (the address is taken). */
function listening(options: { host: string; port: number; exclusive: boolean } | { path: string }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(options, () => resolve(server));
  });
}

export async function claimPort(host: string, port: number): Promise<ClaimedPort> {
  const probe = await listening({ host, port, exclusive: true }).catch((error: unknown) => Promise.reject(inUse(host, port, error)));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (!address || typeof address !== 'object') throw inUse(host, port);
  if (process.platform !== 'linux') return { port: address.port, release: () => undefined };
  const lock = await listening({ path: `\0parley-port-${host}:${address.port}` }).catch((error: unknown) => Promise.reject(new Error(`cannot listen on ${host}:${address.port}: the address is in use by another Parley server`, { cause: error })));
  return { port: address.port, release: () => lock.close() };
}
