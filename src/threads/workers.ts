// What the server's worker threads (the realm thread, the I/O threads) share: their names where
// the system shows threads, and the process ending when one fails.
import { existsSync, writeFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';

/** Names this thread `name` where the system shows threads (`top -H`, /proc/<pid>/task/<tid>/comm;
 * Linux: a thread may rename itself through /proc/thread-self); elsewhere it keeps the name it has,
 * which nothing depends on. */
export function nameThisThread(name: string): void {
  if (existsSync('/proc/thread-self/comm')) writeFileSync('/proc/thread-self/comm', name);
}

/** Ends the process when a worker it cannot serve without fails or ends before the server closes
 * it: its supervisor starts it again (every write answered was durable). Returns what the server
 * calls before ending the worker itself. */
export function supervise(worker: Worker, what: string, config: Config): () => void {
  let closing = false;
  const lost = (error: Error) => {
    config.log.fatal({ err: error }, `${what} failed`);
    process.exit(1);
  };
  worker.on('error', lost);
  worker.on('exit', (code) => {
    if (!closing) lost(new Error(`${what} exited with code ${code}`));
  });
  return () => (closing = true);
}
