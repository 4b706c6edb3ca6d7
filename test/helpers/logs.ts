// The server's logger (pino, JSON lines) writing into an array a test reads.
import { Writable } from 'node:stream';
import { createLogger, type LOG_LEVELS, type Logger } from '../../src/ops/log.js';

/** A logger at `level` and the lines it wrote, parsed, kept in `lines`. The logger writes
 * asynchronously: a line arrives a turn or more after the call that logged it. */
export function capturedLog<L = Record<string, unknown>>(level: (typeof LOG_LEVELS)[number], lines: L[] = []): { log: Logger; lines: L[] } {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter((text) => text !== '')) lines.push(JSON.parse(line) as L);
      done();
    },
  });
  return { log: createLogger({ level, format: 'json' }, sink), lines };
}
