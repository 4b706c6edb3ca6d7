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

/** Lines are written in blocks of this many bytes, or after FLUSH_MS, whichever comes first. */
const BLOCK_BYTES = 8 * 1024;
const FLUSH_MS = 200;

/** A logger writing to `destination`, by default stdout: asynchronously and in blocks (a busy server
 * makes one write per block of lines, not one per line; a quiet one's lines wait at most FLUSH_MS),
 * and what is left is written out when the process exits. */
export function createLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: settings.level, base: { pid: process.pid } };
  if (destination) return pino(options, destination);
  if (settings.format === 'pretty') return pino(options, pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid', singleLine: true }));
  return pino(options, stdout());
}

let shared: ReturnType<typeof pino.destination> | undefined;

/** The process's one writer to stdout, shared by every logger (tests start many servers). */
function stdout(): ReturnType<typeof pino.destination> {
  if (shared) return shared;
  const destination = pino.destination({ dest: 1, sync: false, minLength: BLOCK_BYTES });
  const timer = setInterval(() => destination.flush(), FLUSH_MS).unref();
  destination.on('close', () => clearInterval(timer));
  return (shared = destination);
}
