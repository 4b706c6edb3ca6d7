// What several I/O threads must share to behave as one thread to a client (docs/ARCHITECTURE.md,
// "What is one per process today"): instances over one share act as one instance. A grant is
// redeemed once on any of them, and only as issued; rate limits and failed logins are counted
// together; a full table never loosens a limit; and a share survives the thread boundary.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Grants } from '../src/auth/grants.js';
import { FAILED_LOGIN_WINDOW_MS, LoginLimiter, loginLimitShare, MAX_FAILED_LOGINS } from '../src/auth/loginLimiter.js';
import type { RateLimitSettings } from '../src/config.js';
import { ApiError } from '../src/errors.js';
import { RateLimiter, rateLimitShare } from '../src/http/rateLimit.js';
import { SharedTable } from '../src/sharedTable.js';
import type { ShareHolderInput, ShareHolderOutput } from './fixtures/shareHolder.js';
import type { SpendingRaceInput } from './fixtures/spendingRace.js';
import { spendUntilRefused } from './helpers/rateLimits.js';

const REALM = 7;
const TTL_SECONDS = 30;
const settings: RateLimitSettings = { enabled: true, user: { limit: 4, windowSeconds: 60 }, address: { limit: 100, windowSeconds: 60 }, realms: {} };

/** A clock that moves only when a test moves it (the helpers' TestClock follows real time too, which
 * earns a rate limit's tokens back while a test spends them). */
const handClock = () => ({ time: Date.now(), now(): number { return this.time; }, after: () => () => undefined });

/** Two grant issuers over one share, as two threads hold them. */
function twoGrants(): [Grants, Grants] {
  const first = new Grants(TTL_SECONDS);
  return [first, new Grants(TTL_SECONDS, undefined, first.share)];
}

/** What spending answers: its headers, or a refusal's status, code and headers. */
function spend(limiter: RateLimiter, key: string): Record<string, string | number> {
  try {
    return limiter.spend(key, settings.user);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, ...error.headers };
  }
}

test('a grant issued on one thread is redeemed on another, once: a second try on either is refused', () => {
  const [one, other] = twoGrants();
  const token = one.issue(REALM, 42);
  assert.is(other.redeem(token, REALM), 42);
  assert.is(other.redeem(token, REALM), undefined);
  assert.is(one.redeem(token, REALM), undefined);
});

test('grants issued in turn on both threads are each redeemed once, on either', () => {
  const [one, other] = twoGrants();
  const tokens = [one.issue(REALM, 1), other.issue(REALM, 2), one.issue(REALM, 3)];
  assert.equal(tokens.map((token, i) => (i % 2 ? one : other).redeem(token, REALM)), [1, 2, 3]);
  assert.equal(tokens.map((token) => one.redeem(token, REALM) ?? other.redeem(token, REALM)), [undefined, undefined, undefined]);
});

test('a forged or altered token, an expired one and one for another realm are refused', () => {
  const [one, other] = twoGrants();
  const now = Date.now();
  const token = one.issue(REALM, 42, now);
  const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  const refused = [
    'forged',
    new Grants(TTL_SECONDS).issue(REALM, 42, now), // signed with another key
    flip(token, 5), // the realm
    flip(token, 14), // the user
    flip(token, token.length - 10), // the MAC
    `${token}A`,
    `${token}.`,
    token.slice(0, -1),
  ];
  for (const forged of refused) assert.is(other.redeem(forged, REALM, now), undefined, forged);
  assert.is(other.redeem(token, REALM, now + TTL_SECONDS * 1000), 42, 'the genuine token still works, until its expiry');

  const late = one.issue(REALM, 42, now);
  assert.is(other.redeem(late, REALM, now + TTL_SECONDS * 1000 + 1), undefined, 'expired');
  const elsewhere = one.issue(REALM, 42, now);
  assert.is(other.redeem(elsewhere, REALM + 1, now), undefined, 'another realm');
  assert.is(one.redeem(elsewhere, REALM, now), undefined, 'and trying it used it, as with one thread');
});

test('serials wrap around: grants issued across the wrap each work once', () => {
  const [one, other] = twoGrants();
  new Uint32Array(one.share.serial)[0] = 2 ** 32 - 2;
  const tokens = [one.issue(REALM, 1), other.issue(REALM, 2), one.issue(REALM, 3)];
  assert.is(new Uint32Array(one.share.serial)[0], 1, 'the counter wrapped');
  assert.equal(tokens.map((token) => other.redeem(token, REALM)), [1, 2, 3]);
  assert.equal(tokens.map((token) => one.redeem(token, REALM)), [undefined, undefined, undefined]);
});

test("two rate limiters over one share refuse at the limit counted together, with one limiter's headers; hits counts both", () => {
  const clock = handClock();
  const one = new RateLimiter(settings, clock);
  const other = new RateLimiter(settings, clock, one.share);
  const alone = new RateLimiter(settings, clock);
  const key = `user:${REALM}:42`;
  const shared = [one, other, one, other, other, one].map((limiter) => spend(limiter, key));
  const single = [1, 2, 3, 4, 5, 6].map(() => spend(alone, key));
  assert.equal(shared, single);
  assert.equal(shared.map((answer) => answer['X-RateLimit-Remaining']), ['3', '2', '1', '0', '0', '0']);
  assert.equal([shared[4]!.status, shared[4]!.code], [429, 'RATE_LIMIT_HIT']);
  assert.equal([one.hits, other.hits], [2, 2]);
  assert.is(spend(other, `user:${REALM}:43`)['X-RateLimit-Remaining'], '3', 'another user has a bucket of their own');
  clock.time += 15_000;
  assert.equal([spend(other, key)['X-RateLimit-Remaining'], spend(one, key).status], ['0', 429], 'a request earned back is spent once');
});

test('two login limiters over one share lock a username after 5 failures in all', () => {
  const one = new LoginLimiter();
  const other = new LoginLimiter(undefined, one.share);
  const now = Date.now();
  for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) (i % 2 ? one : other).fail('7:hamlet@zulip.com', now + i);
  assert.equal([one.retryAfter('7:hamlet@zulip.com', now + 10), other.retryAfter('7:hamlet@zulip.com', now + 10)], [0, 0]);
  one.fail('7:hamlet@zulip.com', now + 10);
  const wait = (FAILED_LOGIN_WINDOW_MS - 10) / 1000;
  assert.equal([one.retryAfter('7:hamlet@zulip.com', now + 10), other.retryAfter('7:hamlet@zulip.com', now + 10)], [wait, wait]);
  assert.is(other.retryAfter('7:othello@zulip.com', now + 10), 0, 'another username is not locked');
  assert.is(other.retryAfter('7:hamlet@zulip.com', now + FAILED_LOGIN_WINDOW_MS), 0, 'once the first failure is 30 minutes old');
});

test('a full table neither throws nor loosens a limit: a key beyond it shares a live entry, and keys with entries keep them', () => {
  // Tables of one group (seeded each its own way), filled by eight keys, one of them counted often,
  // then more keys than it holds: an entry lost, cleared or moved would read less than its key's
  // own count.
  for (let table = 0; table < 20; table++) {
    const shared = new SharedTable(SharedTable.share(8, 1), 1);
    const own = new Map<string, number>();
    const count = (key: string) => {
      own.set(key, (own.get(key) ?? 0) + 1);
      return shared.with(key, (entry) => shared.values[entry] === 0, (entry) => ++shared.values[entry]!);
    };
    const keys = Array.from({ length: 58 }, (_, i) => `address:10.0.${table}.${i}`);
    for (let i = 0; i < 100; i++) count(keys[0]!);
    for (const key of keys) count(key);
    for (const key of keys) assert.ok(count(key) >= own.get(key)!, `${key} read less than it counted`);
  }
});

test('an entry whose bucket is full again is a new one for the next key: a small table serves key after key, none taking a live bucket', () => {
  const clock = handClock();
  const limiter = new RateLimiter(settings, clock, rateLimitShare(8));
  const burst = { limit: 100, windowSeconds: 1 };
  const daily = { limit: 1, windowSeconds: 24 * 60 * 60 };
  limiter.spend('address:10.9.9.9', daily);
  for (let i = 0; i < 100; i++) {
    const address = `address:10.0.0.${i}`;
    for (let n = 0; n < burst.limit; n++) limiter.spend(address, burst);
    assert.throws(() => limiter.spend(address, burst));
    clock.time += 1000;
    assert.is(spend(limiter, `user:${REALM}:${i}`)['X-RateLimit-Remaining'], '3', 'a user with a bucket of their own, full');
    clock.time += 60_000;
  }
  assert.throws(() => limiter.spend('address:10.9.9.9', daily), 'the day-long bucket is still spent');
});

test('failures 30 minutes old free their entry: a small table serves username after username, each locked by its own 5 failures only', () => {
  const limiter = new LoginLimiter(undefined, loginLimitShare(8));
  let now = Date.now();
  for (let batch = 0; batch < 3; batch++) {
    const usernames = Array.from({ length: 8 }, (_, i) => `7:user${batch}-${i}@zulip.com`);
    for (const username of usernames) {
      for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) limiter.fail(username, now);
      assert.is(limiter.retryAfter(username, now), 0, `${username} after ${MAX_FAILED_LOGINS - 1} failures`);
      limiter.fail(username, now);
    }
    assert.equal(usernames.map((username) => limiter.retryAfter(username, now)), usernames.map(() => FAILED_LOGIN_WINDOW_MS / 1000));
    now += FAILED_LOGIN_WINDOW_MS;
  }
});

test('a lock left by a thread stopped inside it costs a moment, not a hang', () => {
  const limiter = new RateLimiter(settings);
  new Int32Array(limiter.share.buckets.locks).fill(1);
  const started = performance.now();
  assert.is(spend(limiter, `user:${REALM}:42`)['X-RateLimit-Remaining'], '3');
  assert.ok(performance.now() - started > 1, 'the lock was waited for');
  assert.is(spend(limiter, `user:${REALM}:42`)['X-RateLimit-Remaining'], '2', 'and is free again');
});

test("the shares cross a worker thread: its grants, requests and failed logins count as this thread's", async () => {
  const grants = new Grants(TTL_SECONDS);
  const limiter = new RateLimiter(settings);
  const logins = new LoginLimiter();
  const token = grants.issue(REALM, 42);
  const key = `user:${REALM}:9`;
  assert.is(spend(limiter, key)['X-RateLimit-Remaining'], '3');
  logins.fail('7:hamlet@zulip.com');
  logins.fail('7:hamlet@zulip.com');
  const input: ShareHolderInput = { grants: grants.share, token, realmId: REALM, userId: 9, rateLimits: limiter.share, settings, logins: logins.share, failures: MAX_FAILED_LOGINS - 2, username: '7:hamlet@zulip.com' };
  const worker = new Worker(new URL('./fixtures/shareHolder.js', import.meta.url), { workerData: input });
  // Listened for from the start: a worker's exit may come before the code after its last message runs.
  const exited = once(worker, 'exit');
  const [output] = (await once(worker, 'message')) as [ShareHolderOutput];
  await exited;
  assert.is(output.redeemed, 42, 'a grant issued here is redeemed there');
  assert.is(grants.redeem(token, REALM), undefined, 'and not again here');
  assert.is(grants.redeem(output.issued, REALM), 9, 'a grant issued there is redeemed here');
  assert.equal(output.remaining, ['2', '1', '0'], 'there, what is left after the request spent here');
  assert.is(spend(limiter, key).status, 429);
  assert.is(limiter.hits, 2, "the worker's refusal and this one");
  assert.ok(logins.retryAfter('7:hamlet@zulip.com') > 0, 'two failures here and three there lock the username');
});

test('threads spending one key at the same moment are granted its limit in all, not each', async () => {
  const limiter = new RateLimiter(settings);
  const rule = { limit: 100_000, windowSeconds: 24 * 60 * 60 };
  const start = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const input: SpendingRaceInput = { rateLimits: limiter.share, settings, key: 'address:10.0.0.1', rule, start };
  const worker = new Worker(new URL('./fixtures/spendingRace.js', import.meta.url), { workerData: input });
  const exited = once(worker, 'exit');
  await once(worker, 'message');
  const granted = once(worker, 'message');
  Atomics.store(new Int32Array(start), 0, 1);
  Atomics.notify(new Int32Array(start), 0);
  const here = spendUntilRefused(limiter, input.key, rule).length;
  const [there] = (await granted) as [number];
  await exited;
  assert.is(here + there, rule.limit, `${here} here and ${there} there`);
  assert.is(limiter.hits, 2);
});

test.run();
