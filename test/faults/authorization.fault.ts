// The authorization matrix with every way of being each caller (malformed headers of five shapes,
// five wrong keys, another realm's user at either host), and the canary scan with five outsiders
// and every narrow, printing its figures. Also the plain matrix, one request per route × caller,
// and the canary scan as a guest, an unsubscribed member and another realm's owner (moved here from
// the default suite, where the two took about five seconds).
import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../src/api/routes.js';
import { callers, checkMatrix } from '../helpers/authorization.js';
import { canaryScan } from '../helpers/canaryScan.js';
import { assembleCast, type Cast } from '../helpers/cast.js';
import { report } from '../helpers/operator.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

test('authorization: every route × every way of calling it; a canary no outsider may see', async () => {
  const server = await startTestServer();
  try {
    const started = performance.now();
    const cast = await assembleCast(server);
    const matrix = await checkMatrix(server, cast, true);
    const matrixMs = performance.now() - started;
    const canary = await canaryScan(cast, await server.as('othello@zulip.com'), true);
    report('authorization', {
      'matrix requests': matrix.total,
      'matrix statuses': String(matrix),
      'matrix seconds': (matrixMs / 1000).toFixed(1),
      'canary scan requests': canary.statuses.total,
      'canary scan statuses': String(canary.statuses),
      'events heard by outsiders': canary.events,
      'canary seconds': ((performance.now() - started - matrixMs) / 1000).toFixed(1),
    });
  } finally {
    await server.stop();
  }
});

test.run();

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
