// The web client's files as the server serves them: the page at `/` (asked for again each time),
// the hashed scripts and styles it names (kept for good), with their content types; anything else
// under /static or /api stays a JSON 404.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest, sendRaw } from './helpers/client.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const web = suite<{ server: TestServer }>('web client files');

web.before(async (context) => {
  context.server = await startTestServer();
});
web.after(async ({ server }) => server.stop());

const get = (server: TestServer, path: string) => sendRaw(server.baseUrl, { method: 'GET', path, headers: {} });

web('GET / is the web client\'s page, never cached without asking, naming hashed files that are cached for good', async ({ server }) => {
  const page = await get(server, '/');
  assert.is(page.status, 200);
  assert.is(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.is(page.headers['cache-control'], 'no-cache');
  const html = page.text;
  const files = [...html.matchAll(/(?:src|href)="\/static\/([^"]+)"/g)].map((match) => match[1]!);
  assert.equal(files.map((file) => file.replace(/-[A-Z0-9]{8}\./, '-HASH.')).sort(), ['app-HASH.css', 'app-HASH.js']);
  for (const file of files) {
    const asset = await get(server, `/static/${file}`);
    assert.is(asset.status, 200, file);
    assert.is(asset.headers['content-type'], file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
    assert.is(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.is(asset.headers['x-content-type-options'], 'nosniff');
    assert.ok(asset.text.length > 0);
  }
  // Nothing is fetched from elsewhere: every script and style is the server's own.
  assert.not.match(html, /https?:\/\//);
});

web('an unknown file under /static, a name that is not a bundle file, and unknown /api paths are JSON 404s or 400s', async ({ server }) => {
  const unknown = await rawRequest(server.baseUrl, { method: 'GET', path: '/static/app-AAAAAAAA.js', headers: {} });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.code, 'NOT_FOUND');
  const traversal = await rawRequest(server.baseUrl, { method: 'GET', path: '/static/..%2Fsrc%2Fmain.js', headers: {} });
  assert.is(traversal.status, 400);
  assert.is(traversal.body.result, 'error');
  const api = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/no_such_endpoint', headers: {} });
  assert.is(api.status, 404);
  assert.is(api.body.code, 'NOT_FOUND');
  const root = await rawRequest(server.baseUrl, { method: 'POST', path: '/', headers: {} });
  assert.is(root.status, 405);
});

web.run();
