// The server's time: what "now" is and when later work runs. The system clock by default; tests
// give a server a clock of their own to jump ahead (days past a time limit, the moment a scheduled
// message is due) without waiting.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `run` once `delayMs` of this clock's time has passed; the returned function cancels it. */
  after(delayMs: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(delayMs, run) {
    const timer = setTimeout(run, delayMs);
    return () => clearTimeout(timer);
  },
};

/** UNIX seconds on a clock. */
export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);

/** How long to wait before the next try after `failures` failed ones: `first`, doubling each time,
 * at most `max` (in whatever unit both are). */
export const backoff = (first: number, max: number, failures: number): number => Math.min(first * 2 ** failures, max);

/** Runs `run` every `intervalMs` of a clock's time until the returned function is called. */
export function every(clock: Clock, intervalMs: number, run: () => void): () => void {
  let cancel = clock.after(intervalMs, function tick() {
    run();
    cancel = clock.after(intervalMs, tick);
  });
  return () => cancel();
}
