// Authentication: HTTP Basic with e-mail (or the dummy form) and API key; every failure is a 401
// JSON error with a Basic challenge; the development key fetch; key regeneration.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from './helpers/client.js';
import { assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const auth = suite<{ server: TestServer }>('authentication');

auth.before(async (context) => {
  context.server = await startTestServer();
});
auth.after(async ({ server }) => server.stop());

function assertUnauthorized(response: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> }, code: string) {
  assert.is(response.status, 401);
  assert.is(response.body.result, 'error');
  assert.is(response.body.code, code);
  assert.match(String(response.headers['www-authenticate']), /^Basic/);
}

auth('no credentials: 401 UNAUTHORIZED', async ({ server }) => {
  const response = await server.anonymous.get('/users/me');
  assertUnauthorized(response, 'UNAUTHORIZED');
  assertMatchesComponent('CodedError', response.body);
});

auth('a malformed Authorization header: 401 UNAUTHORIZED', async ({ server }) => {
  for (const header of ['Bearer abc', 'Basic', `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
    const response = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/me', headers: { Authorization: header } });
    assertUnauthorized(response, 'UNAUTHORIZED');
  }
});

auth('a wrong key, or an unknown user: 401 INVALID_API_KEY', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const wrongKey = iago.withCredentials({ email: 'iago@zulip.com', apiKey: 'x'.repeat(32) });
  const wrong = await wrongKey.get('/users/me');
  assertUnauthorized(wrong, 'INVALID_API_KEY');
  assertMatchesComponent('InvalidApiKeyError', wrong.body);
  const unknown = iago.withCredentials({ email: 'nobody@zulip.com', apiKey: iago.credentials!.apiKey });
  assertUnauthorized(await unknown.get('/users/me'), 'INVALID_API_KEY');
  const otherUsersKey = iago.withCredentials({ email: 'hamlet@zulip.com', apiKey: iago.credentials!.apiKey });
  assertUnauthorized(await otherUsersKey.get('/users/me'), 'INVALID_API_KEY');
});

auth('the dummy user{id}@{realm host} address authenticates like the real one, case-insensitively', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const me = await iago.get('/users/me');
  const dummy = iago.withCredentials({ email: `user${me.body.user_id}@localhost`, apiKey: iago.credentials!.apiKey });
  assert.is((await dummy.get('/users/me')).body.user_id, me.body.user_id);
  const upper = iago.withCredentials({ email: 'IAGO@zulip.com', apiKey: iago.credentials!.apiKey });
  assert.is((await upper.get('/users/me')).status, 200);
});

auth('the development key fetch returns a working 32-character key', async ({ server }) => {
  const response = await server.anonymous.post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  assert.is(response.status, 200);
  assertMatchesReference('POST /dev_fetch_api_key', response.body);
  assert.is(response.body.email, 'iago@zulip.com');
  assert.match(String(response.body.api_key), /^[A-Za-z0-9]{32}$/);
  const iago = server.anonymous.withCredentials({ email: 'iago@zulip.com', apiKey: String(response.body.api_key) });
  const me = await iago.get('/users/me');
  assert.is(me.body.user_id, response.body.user_id);
  assert.is(me.body.full_name, 'Iago');
  assert.is(me.body.role, 200);
});

auth('the development key fetch refuses an unknown user', async ({ server }) => {
  const response = await server.anonymous.post('/dev_fetch_api_key', { username: 'nobody@zulip.com' });
  assert.is(response.status, 401);
  assert.is(response.body.code, 'AUTHENTICATION_FAILED');
});

auth('a web page\'s request (X-Requested-With) is refused without a Basic challenge, so no browser prompts', async ({ server }) => {
  const headers = { 'X-Requested-With': 'XMLHttpRequest' };
  const anonymous = await rawRequest(server.baseUrl, { method: 'GET', path: '/api/v1/users/me', headers });
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.code, 'UNAUTHORIZED');
  assert.is(anonymous.headers['www-authenticate'], undefined);
  const body = 'username=hamlet%40zulip.com&password=wrong';
  const login = await rawRequest(server.baseUrl, { method: 'POST', path: '/api/v1/fetch_api_key', headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body });
  assert.is(login.status, 401);
  assert.is(login.body.code, 'AUTHENTICATION_FAILED');
  assert.is(login.headers['www-authenticate'], undefined);
});

auth('the development user list names the demo users, administrators apart, bots left out', async ({ server }) => {
  const response = await server.anonymous.get('/dev_list_users');
  assert.is(response.status, 200);
  const url = `http://${server.config.externalHost}`;
  const entry = (email: string) => ({ email, realm_uri: url, realm_url: url });
  assert.equal(response.body.direct_admins, ['desdemona@zulip.com', 'iago@zulip.com'].map(entry));
  assert.equal(response.body.direct_users, ['cordelia@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com', 'polonius@zulip.com', 'prospero@zulip.com'].map(entry));
  // A deactivated user is not offered.
  await (await server.as('iago@zulip.com')).delete('/users/' + String((await server.anonymous.post('/dev_fetch_api_key', { username: 'prospero@zulip.com' })).body.user_id));
  const after = await server.anonymous.get('/dev_list_users');
  assert.not.ok((after.body.direct_users as { email: string }[]).some((user) => user.email === 'prospero@zulip.com'));
});

auth('regenerating a key makes the old one stop working at once', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const regenerated = await othello.post('/users/me/api_key/regenerate');
  assert.is(regenerated.status, 200);
  assertUnauthorized(await othello.get('/users/me'), 'INVALID_API_KEY');
  const renewed = othello.withCredentials({ email: othello.email, apiKey: String(regenerated.body.api_key) });
  assert.is((await renewed.get('/users/me')).status, 200);
});

auth.run();

const production = suite<{ server: TestServer }>('production mode');

production.before(async (context) => {
  context.server = await startTestServer({ mode: 'production' });
});
production.after(async ({ server }) => server.stop());

production('never seeds, and refuses the development key fetch and user list', async ({ server }) => {
  const response = await server.anonymous.post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  assert.is(response.status, 404, 'no realm exists: production mode does not seed');
  await server.parley.realms.create({ subdomain: '', name: 'Production org' });
  const refused = await server.anonymous.post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  assert.is(refused.status, 400);
  assert.equal(refused.body, { result: 'error', code: 'BAD_REQUEST', msg: 'DevAuthBackend not enabled.' });
  const list = await server.anonymous.get('/dev_list_users');
  assert.is(list.status, 400);
  assert.equal(list.body, { result: 'error', code: 'BAD_REQUEST', msg: 'DevAuthBackend not enabled.' });
});

production.run();
