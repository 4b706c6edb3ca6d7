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

/** A logger writing to `destination`, by default stdout: asynchronously (lines logged while a write
 * is under way go out together in the next), and what is left is written out when the process exits. */
export function createLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = { level: settings.level, base: { pid: process.pid } };
  if (destination) return pino(options, destination);
  if (settings.format === 'pretty') return pino(options, pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid' }));
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
