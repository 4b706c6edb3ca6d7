// A clock a test moves by hand: the server's "now" starts at the real time and jumps when the test
// says, running every timer that falls due on the way, in time order (timers due at once run at
// once).
import type { Clock } from '../../src/clock.js';

interface Timer {
  at: number;
  run: () => void;
}

export class TestClock implements Clock {
  private offsetMs = 0;
  private readonly timers = new Set<Timer>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  after(delayMs: number, run: () => void): () => void {
    // What is due already runs at once, as with real timers; the rest waits for advance().
    if (delayMs <= 0) {
      const timer = setTimeout(run, 0);
      return () => clearTimeout(timer);
    }
    const timer = { at: this.now() + delayMs, run };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Moves time forward, running the timers that fall due, earliest first. */
  advance(ms: number): void {
    this.offsetMs += ms;
    for (;;) {
      const due = [...this.timers].filter((timer) => timer.at <= this.now()).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.timers.delete(due);
      due.run();
    }
  }
}
