// Limits failed password logins per username (Zulip: 5 per 30 minutes). The failures live in a
// table in shared memory (`LoginLimitShare`), so that the I/O threads given one share count a
// username's failures together.
import { systemClock, type Clock } from '../clock.js';
import { SharedTable, type SharedTableShare } from '../sharedTable.js';

export const MAX_FAILED_LOGINS = 5;
export const FAILED_LOGIN_WINDOW_MS = 30 * 60 * 1000;

/** Plain data, for a worker's `workerData` or a port. */
export interface LoginLimitShare {
  readonly failures: SharedTableShare;
}

/** Usernames with a failure in the last 30 minutes that the table holds (beyond, see
 * sharedTable.ts). */
const USERNAMES = 1 << 13;

/** A share of a table of at least `usernames` entries (a test's may be small enough to fill). */
export const loginLimitShare = (usernames = USERNAMES): LoginLimitShare => ({ failures: SharedTable.share(usernames, MAX_FAILED_LOGINS) });

export class LoginLimiter {
  private readonly failures: SharedTable;

  constructor(
    private readonly clock: Clock = systemClock,
    readonly share: LoginLimitShare = loginLimitShare(),
  ) {
    this.failures = new SharedTable(share.failures, MAX_FAILED_LOGINS);
  }

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  retryAfter(key: string, now = this.clock.now()): number {
    return this.failures.with(key, this.past(now), (entry) => {
      const recent = this.times(entry).filter((time) => now - time < FAILED_LOGIN_WINDOW_MS);
      if (recent.length < MAX_FAILED_LOGINS) return 0;
      return (Math.min(...recent) + FAILED_LOGIN_WINDOW_MS - now) / 1000;
    });
  }

  fail(key: string, now = this.clock.now()): void {
    this.failures.with(key, this.past(now), (entry) => {
      // An entry keeps a username's last MAX_FAILED_LOGINS failure times (zeros before the first):
      // the newest replaces the oldest. Whether it is locked needs no more.
      const times = this.times(entry);
      this.failures.values[entry + times.indexOf(Math.min(...times))] = now;
    });
  }

  /** Whether an entry's failures are all outside the window: then it reads as a new username's. */
  private past(now: number): (entry: number) => boolean {
    return (entry) => this.times(entry).every((time) => now - time >= FAILED_LOGIN_WINDOW_MS);
  }

  private times(entry: number): Float64Array {
    return this.failures.values.subarray(entry, entry + MAX_FAILED_LOGINS);
  }
}
