// One timer per realm for its scheduled messages: armed for the earliest delivery time, re-armed
// whenever that may have changed. Times far ahead are reached in steps (setTimeout's limit is
// ~24.8 days).
import type { Clock } from '../clock.js';

const MAX_DELAY_MS = 24 * 3600 * 1000;

export class DeliveryTimer {
  private cancel: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  /** Fires at `deliverAt` (UNIX seconds), but not before `minDelayMs`; undefined disarms. */
  arm(deliverAt: number | undefined, minDelayMs = 0): void {
    this.cancel?.();
    this.cancel = undefined;
    if (deliverAt === undefined || this.stopped) return;
    const delay = Math.min(Math.max(deliverAt * 1000 - this.clock.now(), minDelayMs), MAX_DELAY_MS);
    this.cancel = this.clock.after(delay, this.fire);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
  }
}
