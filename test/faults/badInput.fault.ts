// Generated bad input for every route of the route table, many requests each
// (FAULT_BAD_INPUT_RUNS a route, 12 by default; FAULT_SEED repeats a run): no 5xx, errors in
// Zulip's shape, the realm's state unchanged by refused requests and GETs, the other realm
// untouched, and afterwards what the realm holds in memory is what a restart reads from disk.
// Also one request a route with a fixed seed (moved here from the default suite, where it took
// several seconds): the same run every time, so a failure there repeats exactly.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actorsOf, sendBadInput } from '../helpers/badInput.js';
import { TestClock } from '../helpers/clock.js';
import { report } from '../helpers/operator.js';
import { assertSameState, realmDigest } from '../helpers/realmDigest.js';
import { startTestServer } from '../helpers/server.js';

const runsPerRoute = Number(process.env.FAULT_BAD_INPUT_RUNS ?? 12);
const seed = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

test('bad input: every route, many generated requests, then a restart', async () => {
  // A clock that stands still: no scheduled message falls due while the state is compared.
  const clock = new TestClock();
  const first = await startTestServer({ clock });
  const figures = await sendBadInput(first, { runsPerRoute, seed }).catch(async (error: unknown) => {
    await first.stop();
    throw error;
  });
  const inMemory = await realmDigest(actorsOf(first, figures.cast));
  await first.parley.close();
  const second = await startTestServer({ clock, dataDir: first.config.dataDir });
  try {
    assertSameState(await realmDigest(actorsOf(second, figures.cast)), inMemory, 'what a restart reads differs from what the realm held');
    report('bad input', {
      seed,
      routes: figures.routes,
      requests: figures.statuses.total,
      statuses: String(figures.statuses),
      seconds: (figures.ms / 1000).toFixed(1),
    });
  } finally {
    await second.stop();
  }
});

test('bad input: every route, every encoding, refused cleanly and without a trace (fixed seed, one request a route)', async () => {
  // A clock that stands still: no scheduled message falls due while the state is compared.
  const server = await startTestServer({ clock: new TestClock() });
  try {
    const figures = await sendBadInput(server, { runsPerRoute: 1, seed: 11 });
    assert.is(figures.statuses.total, figures.routes, 'one request a route');
  } finally {
    await server.stop();
  }
});

test.run();
