// The server's log: pino, one JSON object per line on stdout (what log shippers read), or a
// readable form for a person at a terminal. Secrets never reach it: requests are logged by route
// pattern, never with their query string or credentials.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

export interface LogSettings {
  /** pino's levels: fatal, error, warn, info, debug, trace, or silent. */
  level: string;
  format: LogFormat;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Lines are written in blocks of this many bytes, or after FLUSH_MS, whichever comes first: a
 * write to a pipe costs far more than its bytes, so blocks come near what a pipe holds (64 KiB);
 * with 8 KiB blocks the request log took a third of a busy server's time per request. */
const BLOCK_BYTES = 56 * 1024;
const MAX_WRITE_BYTES = 64 * 1024;
const FLUSH_MS = 200;

/** A logger writing to `destination`, by default stdout: asynchronously and in blocks (a busy server
 * makes one write per block of lines, not one per line; a quiet one's lines wait at most FLUSH_MS),
 * and what is left is written out when the process exits. JSON lines reach the destination once
 * per turn of the event loop, together (a request's line costs less than handing it over alone). */
export function createLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: settings.level, base: { pid: process.pid } };
  if (destination) return pino(options, new TurnBatch(destination));
  if (settings.format === 'pretty') return pino(options, pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid', singleLine: true }));
  return pino(options, stdout());
}

/** Gathers the lines written during one turn of the event loop and hands them on in one write at
 * its end. */
class TurnBatch implements DestinationStream {
  private pending = '';

  constructor(private readonly destination: DestinationStream) {}

  write(line: string): void {
    if (this.pending === '') setImmediate(this.flush);
    this.pending += line;
  }

  readonly flush = (): void => {
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    this.destination.write(lines);
  };
}

let shared: TurnBatch | undefined;

/** The process's one writer to stdout, shared by every logger (tests start many servers). */
function stdout(): TurnBatch {
  if (shared) return shared;
  const destination = pino.destination({ dest: 1, sync: false, minLength: BLOCK_BYTES, maxWrite: MAX_WRITE_BYTES });
  const timer = setInterval(() => destination.flush(), FLUSH_MS).unref();
  let closed = false;
  destination.on('close', () => {
    clearInterval(timer);
    closed = true;
  });
  const batch = new TurnBatch(destination);
  // An exit in the middle of a turn: its lines are written out with the rest.
  process.on('exit', () => {
    batch.flush();
    if (!closed) destination.flushSync();
  });
  return (shared = batch);
}
