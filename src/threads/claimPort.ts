// The port the I/O threads share (PARLEY_THREADS above 2). Each listens with SO_REUSEPORT, with
// which the kernel spreads connections over every socket listening so — a second server started on
// the same port would silently take a share of them. So the port is bound exclusively for a moment
// first (a port some other server holds fails the start; port 0 picks the port to share), and for
// as long as the server runs it holds a lock named by the address and port: a socket in Linux's
// abstract namespace, which only one process can bind and which goes with the process
// (claims.ts). Another server starting meanwhile, before this one's threads listen, fails on the
// lock. (Elsewhere there is no such namespace, and no lock: SO_REUSEPORT does not spread
// connections there either.)
import { createServer, type Server } from 'node:net';
import { holdAbstractName } from '../claims.js';

/** A port claimed for the threads to share. */
export interface ClaimedPort {
  port: number;
  /** Lets the port go, once the server no longer listens. */
  release(): void;
}

const inUse = (host: string, port: number, cause?: unknown) => new Error(`cannot listen on ${host}:${port}: the address is in use or not available`, { cause });

/** Listens on `options` and resolves with the server, or rejects (the address is taken). */
function listening(options: { host: string; port: number; exclusive: boolean }): Promise<Server> {
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
  const lock = holdAbstractName(`parley-port-${host}:${address.port}`);
  if (lock === null) throw new Error(`cannot listen on ${host}:${address.port}: the address is in use by another Parley server`);
  return { port: address.port, release: () => lock?.close() };
}
