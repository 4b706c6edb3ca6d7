// API rate limits (Zulip's: each user 200 requests a minute; each address 100 a minute for
// requests without credentials and for failed authentication), as token buckets: a key may spend
// `limit` requests at once and earns them back evenly over `windowSeconds`. Every limited response
// carries Zulip's X-RateLimit-* headers; a refused one is 429 RATE_LIMIT_HIT. The buckets live in a
// table in shared memory (`RateLimitShare`), so that the I/O threads given one share allow, and
// count as refused, what one thread would.
import { systemClock, type Clock } from '../clock.js';
import type { RateLimitSettings, RateRule } from '../config.js';
import { errors } from '../errors.js';
import { SharedTable, type SharedTableShare } from '../sharedTable.js';

/** Plain data, for a worker's `workerData` or a port. */
export interface RateLimitShare {
  readonly buckets: SharedTableShare;
  /** BigInt64: requests refused since start (for operators). */
  readonly refused: SharedArrayBuffer;
}

/** Keys with a bucket not yet full again that the table holds (users and addresses active in the
 * last minute or so; beyond, see sharedTable.ts). */
const BUCKETS = 1 << 15;
// A bucket's numbers: its tokens, when they were counted and when it is full again if nothing is
// spent (ms): from then on it reads as a new key's, and its entry is free.
const TOKENS = 0;
const COUNTED_AT = 1;
const FULL_AT = 2;
const BUCKET_WIDTH = 3;

/** A share of a table of at least `buckets` entries (a test's may be small enough to fill). */
export const rateLimitShare = (buckets = BUCKETS): RateLimitShare => ({ buckets: SharedTable.share(buckets, BUCKET_WIDTH), refused: new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT) });

export class RateLimiter {
  private readonly buckets: SharedTable;
  private readonly refused: BigInt64Array;

  constructor(
    readonly settings: RateLimitSettings,
    private readonly clock: Clock = systemClock,
    readonly share: RateLimitShare = rateLimitShare(),
  ) {
    this.buckets = new SharedTable(share.buckets, BUCKET_WIDTH);
    this.refused = new BigInt64Array(share.refused);
  }

  /** Requests refused since start, by every limiter of this share (for operators). */
  get hits(): number {
    return Number(Atomics.load(this.refused, 0));
  }

  userRule(subdomain: string): RateRule {
    return this.settings.realms[subdomain] ?? this.settings.user;
  }

  /** Spends one request of `key`; returns Zulip's headers, or throws 429 when none is left. */
  spend(key: string, rule: RateRule): Record<string, string> {
    if (!this.settings.enabled) return {};
    const now = this.clock.now();
    const rate = rule.limit / (rule.windowSeconds * 1000);
    const values = this.buckets.values;
    const full = (bucket: number) => values[bucket + FULL_AT]! <= now;
    const tokens = this.buckets.with(key, full, (bucket) => {
      // A bucket full again is a new one, whichever key left it: that is why its entry is free.
      const tokens = full(bucket) ? rule.limit : Math.min(rule.limit, values[bucket + TOKENS]! + (now - values[bucket + COUNTED_AT]!) * rate);
      const left = tokens < 1 ? tokens : tokens - 1;
      values[bucket + TOKENS] = left;
      values[bucket + COUNTED_AT] = now;
      values[bucket + FULL_AT] = now + (rule.limit - left) / rate;
      return tokens;
    });
    const reset = (left: number) => String(Math.ceil((now + (rule.limit - left) / rate) / 1000));
    if (tokens < 1) {
      Atomics.add(this.refused, 0, 1n);
      const error = errors.rateLimited((1 - tokens) / rate / 1000);
      Object.assign(error.headers, { 'X-RateLimit-Limit': String(rule.limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset(tokens) });
      throw error;
    }
    return { 'X-RateLimit-Limit': String(rule.limit), 'X-RateLimit-Remaining': String(Math.floor(tokens - 1)), 'X-RateLimit-Reset': reset(tokens - 1) };
  }
}
