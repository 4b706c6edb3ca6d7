// One timer per realm for its scheduled messages: armed for the earliest delivery time, re-armed
// whenever that may have changed. Times far ahead are reached in steps (setTimeout's limit is
// ~24.8 days).
import type { Clock } from '../clock.js';

const MAX_DELAY_MS = 24 * 3600 * 1000;

export class DeliveryTimer {
  private cancel: (() => void) | undefined;
  private stopped = false;
  /** No delivery before this time (ms): a retry's wait, which arming meanwhile keeps. */
  private notBefore = 0;

  constructor(
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  /** Fires at `deliverAt` (UNIX seconds), or once a wait asked by `holdOff` is over if that is
   * later; undefined disarms. */
  arm(deliverAt: number | undefined): void {
    this.cancel?.();
    this.cancel = undefined;
    if (deliverAt === undefined || this.stopped) return;
    const now = this.clock.now();
    const delay = Math.min(Math.max(deliverAt * 1000 - now, this.notBefore - now), MAX_DELAY_MS);
    this.cancel = this.clock.after(delay, this.fire);
  }

  /** Delivers nothing for the next `ms` (a delivery was refused for now): every arming meanwhile
   * waits for it. */
  holdOff(ms: number): void {
    this.notBefore = Math.max(this.notBefore, this.clock.now() + ms);
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
