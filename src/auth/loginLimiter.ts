// Limits failed password logins per username (Zulip: 5 per 30 minutes), in memory.

import { systemClock, type Clock } from '../clock.js';

export const MAX_FAILED_LOGINS = 5;
export const FAILED_LOGIN_WINDOW_MS = 30 * 60 * 1000;

export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  retryAfter(key: string, now = this.clock.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < MAX_FAILED_LOGINS) return 0;
    return (recent[0]! + FAILED_LOGIN_WINDOW_MS - now) / 1000;
  }

  fail(key: string, now = this.clock.now()): void {
    this.failures.set(key, [...this.recent(key, now), now]);
  }

  private recent(key: string, now: number): number[] {
    const recent = (this.failures.get(key) ?? []).filter((time) => now - time < FAILED_LOGIN_WINDOW_MS);
    if (recent.length === 0) this.failures.delete(key);
    return recent;
  }
}
