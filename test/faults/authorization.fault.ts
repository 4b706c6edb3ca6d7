// The authorization matrix with every way of being each caller (malformed headers of five shapes,
// five wrong keys, another realm's user at either host), and the canary scan with five outsiders
// and every narrow, printing its figures.
import { test } from 'uvu';
import { checkMatrix } from '../helpers/authorization.js';
import { canaryScan } from '../helpers/canaryScan.js';
import { assembleCast } from '../helpers/cast.js';
import { report } from '../helpers/operator.js';
import { startTestServer } from '../helpers/server.js';

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
