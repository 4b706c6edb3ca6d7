// Generated bad input for every route of the route table, a few requests each (the fault tier,
// test/faults/badInput.fault.ts, sends many more): no 5xx, errors in Zulip's shape, and the
// realms' state unchanged by refused requests.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendBadInput } from './helpers/badInput.js';
import { TestClock } from './helpers/clock.js';
import { startTestServer } from './helpers/server.js';

test('bad input: every route, every encoding, refused cleanly and without a trace', async () => {
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
