// The authorization matrix, one request per route × caller, and the canary scan as a guest, an
// unsubscribed member and another realm's owner (the fault tier, test/faults/authorization.fault.ts,
// tries every way of being each caller and more outsiders).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../src/api/routes.js';
import { callers, checkMatrix } from './helpers/authorization.js';
import { canaryScan } from './helpers/canaryScan.js';
import { assembleCast, type Cast } from './helpers/cast.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const authorization = suite<{ server: TestServer; cast: Cast }>('authorization');

authorization.before(async (context) => {
  context.server = await startTestServer();
  context.cast = await assembleCast(context.server);
});
authorization.after(async ({ server }) => server.stop());

authorization("every route × every caller gets what the route's auth kind promises", async ({ server, cast }) => {
  const statuses = await checkMatrix(server, cast, false);
  assert.is(statuses.total, routes.length * callers.length);
});

authorization('no trace of a private conversation reaches anyone outside it', async ({ server, cast }) => {
  const { statuses } = await canaryScan(cast, await server.as('othello@zulip.com'), false);
  assert.ok(statuses.total > routes.filter(({ method }) => method === 'GET').length * 3, 'every GET route, as each outsider');
});

authorization.run();
