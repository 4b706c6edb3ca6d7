// Spending a rate limiter's requests directly, as the request pipeline does, on any thread.
import type { RateRule } from '../../src/config.js';
import { ApiError } from '../../src/errors.js';
import type { RateLimiter } from '../../src/http/rateLimit.js';

/** Spends `key` until a request is refused: the headers of each one granted before. */
export function spendUntilRefused(limiter: RateLimiter, key: string, rule: RateRule): Record<string, string>[] {
  const granted: Record<string, string>[] = [];
  for (;;) {
    try {
      granted.push(limiter.spend(key, rule));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'RATE_LIMIT_HIT') return granted;
      throw error;
    }
  }
}
