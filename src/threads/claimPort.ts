// The port the I/O threads share (PARLEY_THREADS above 2). Each listens with SO_REUSEPORT, with
// which the kernel spreads connections over every socket listening so — a second server started on
// the same port would silently take a share of them. The port is therefore bound exclusively for a
// moment first (as one thread binds it for good), and a port in use fails the start.
import { createServer } from 'node:net';

/** Binds `port` on `host` exclusively and lets it go: the port to share (a free one for 0). */
export function claimPort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) => reject(new Error(`cannot listen on ${host}:${port}: the address is in use or not available`, { cause: error })));
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error(`cannot listen on ${host}:${port}`))));
    });
  });
}
