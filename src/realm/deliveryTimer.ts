// One timer per realm for its scheduled messages: armed for the earliest delivery time, re-armed
// whenever that may have changed. Times far ahead are reached in steps (setTimeout's limit is
// ~24.8 days).
const MAX_DELAY_MS = 24 * 3600 * 1000;

export class DeliveryTimer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly clock: () => number,
    private readonly fire: () => void,
  ) {}

  /** Fires at `deliverAt` (UNIX seconds), but not before `minDelayMs`; undefined disarms. */
  arm(deliverAt: number | undefined, minDelayMs = 0): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (deliverAt === undefined || this.stopped) return;
    const delay = Math.min(Math.max(deliverAt * 1000 - this.clock(), minDelayMs), MAX_DELAY_MS);
    this.timer = setTimeout(this.fire, delay);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
