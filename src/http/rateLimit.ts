// API rate limits (Zulip's: each user 200 requests a minute; each address 100 a minute for
// requests without credentials and for failed authentication), as token buckets in memory: a key
// may spend `limit` requests at once and earns them back evenly over `windowSeconds`. Every
// limited response carries Zulip's X-RateLimit-* headers; a refused one is 429 RATE_LIMIT_HIT.
import { systemClock, type Clock } from '../clock.js';
import type { RateLimitSettings, RateRule } from '../config.js';
import { errors } from '../errors.js';

interface Bucket {
  tokens: number;
  /** When the tokens were counted (ms). */
  at: number;
  /** When the bucket is full again if nothing is spent (ms): then it can be forgotten. */
  fullAt: number;
}

/** How often full buckets are forgotten. */
const SWEEP_INTERVAL_MS = 60_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;
  /** Requests refused since start (for operators). */
  hits = 0;

  constructor(
    readonly settings: RateLimitSettings,
    private readonly clock: Clock = systemClock,
  ) {}

  userRule(subdomain: string): RateRule {
    return this.settings.realms[subdomain] ?? this.settings.user;
  }

  /** Spends one request of `key`; returns Zulip's headers, or throws 429 when none is left. */
  spend(key: string, rule: RateRule): Record<string, string> {
    if (!this.settings.enabled) return {};
    const now = this.clock.now();
    this.sweep(now);
    const rate = rule.limit / (rule.windowSeconds * 1000);
    const previous = this.buckets.get(key);
    const tokens = previous ? Math.min(rule.limit, previous.tokens + (now - previous.at) * rate) : rule.limit;
    const fullAt = (left: number) => now + (rule.limit - left) / rate;
    if (tokens < 1) {
      this.hits++;
      this.buckets.set(key, { tokens, at: now, fullAt: fullAt(tokens) });
      const retryAfter = (1 - tokens) / rate / 1000;
      const error = errors.rateLimited(retryAfter);
      Object.assign(error.headers, { 'X-RateLimit-Limit': String(rule.limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.ceil(fullAt(tokens) / 1000)) });
      throw error;
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now, fullAt: fullAt(tokens - 1) });
    return { 'X-RateLimit-Limit': String(rule.limit), 'X-RateLimit-Remaining': String(Math.floor(tokens - 1)), 'X-RateLimit-Reset': String(Math.ceil(fullAt(tokens - 1) / 1000)) };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) if (bucket.fullAt <= now) this.buckets.delete(key);
  }
}
