// Fetching API keys without Basic auth: with a password (rate limited) and with a JWT
// (spec endpoint 8), for HS256 and RS256 keys.
import { generateKeyPair, randomBytes, scryptSync } from 'node:crypto';
import { promisify } from 'node:util';
import { SignJWT, importPKCS8 } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertMatchesComponent, assertMatchesReference, specUserFields } from './helpers/reference.js';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { hashNewPassword } from '../src/users/password.js';
import { Role } from '../src/users/records.js';
import { rejects } from './helpers/assert.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const secret = 'a-shared-secret-of-enough-length-for-hs256';
// Made on the thread pool while the tests before the RS256 one run (an RSA key takes 0.1-0.5 s).
const rsaKeys = promisify(generateKeyPair)('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

const sign = (claims: Record<string, unknown>, key: string | Uint8Array = secret, expiresIn = '5m') =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);

const keys = suite<{ server: TestServer }>('password and JWT key fetches');

keys.before(async (context) => {
  context.server = await startTestServer({ jwtKeys: { '': { key: secret, algorithms: ['HS256'] } } });
});
keys.after(async ({ server }) => server.stop());

keys('a password login returns the key; a wrong password is 401 AUTHENTICATION_FAILED', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const created = await iago.post('/users', { email: 'pw@zulip.com', full_name: 'Pass Word', password: 'correct horse' });
  const ok = await server.anonymous.post('/fetch_api_key', { username: 'pw@zulip.com', password: 'correct horse' });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assertMatchesReference('POST /fetch_api_key', ok.body);
  assert.equal([ok.body.email, ok.body.user_id], ['pw@zulip.com', created.body.user_id]);
  const me = await server.anonymous.withCredentials({ email: 'pw@zulip.com', apiKey: String(ok.body.api_key) }).get('/users/me');
  assert.is(me.status, 200);
  const wrong = await server.anonymous.post('/fetch_api_key', { username: 'pw@zulip.com', password: 'battery staple' });
  assert.equal([wrong.status, wrong.body.code], [401, 'AUTHENTICATION_FAILED']);
  const bot = await iago.post('/bots', { full_name: 'No password', short_name: 'nopass' });
  const botEmail = ((await iago.get(`/users/${bot.body.user_id}`)).body.user as { email: string }).email;
  const noPassword = await server.anonymous.post('/fetch_api_key', { username: botEmail, password: 'anything' });
  assert.is(noPassword.status, 401, 'a user without a password cannot log in with one');
});

keys('a development server gives the demo users the password docs/getting-started.md gives (a phone has no development login)', async ({ server }) => {
  const ok = await server.anonymous.post('/fetch_api_key', { username: 'hamlet@zulip.com', password: DEMO_PASSWORD });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.api_key, (await server.as('hamlet@zulip.com')).credentials!.apiKey);
});

keys('a development server takes any password up to 100 characters, as Zulip\'s development settings (the API example\'s "temp")', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const refused = await iago.post('/users', { email: 'weak@zulip.com', full_name: 'Weak', password: 'x'.repeat(101) });
  assert.equal([refused.status, refused.body.msg], [400, 'The password is too weak.']);
  assert.is((await iago.get('/users/weak@zulip.com')).status, 400, 'nothing was created');
  const created = await iago.post('/users', { email: 'temp@zulip.com', full_name: 'Temp', password: 'temp' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is((await server.anonymous.post('/fetch_api_key', { username: 'temp@zulip.com', password: 'temp' })).status, 200);
  const realm = (await iago.post('/register', { fetch_event_types: ['realm'] })).body;
  assert.equal([realm.password_min_length, realm.password_max_length], [0, 100]);
});

keys('a production server requires 6 to 100 characters (Zulip: "The password is too weak.")', async () => {
  const production = { mode: 'production', passwordHashCost: 4 } as const;
  for (const password of ['short', 'x'.repeat(101)]) await rejects(() => hashNewPassword(password, production), /The password is too weak/);
  assert.match(await hashNewPassword('long enough', production), /^scrypt\$/);
});

keys('a hash keeps its own cost: after a restart with another PARLEY_PASSWORD_HASH_COST, and in the first format (scrypt$salt$hash at 2^14), passwords still log in', async () => {
  const first = await startTestServer({ passwordHashCost: 5 });
  await (await first.as('iago@zulip.com')).post('/users', { email: 'cost@zulip.com', full_name: 'Cost Five', password: 'made at five' });
  const salt = randomBytes(16);
  const firstFormat = `scrypt$${salt.toString('base64')}$${scryptSync('made long ago', salt, 32, { N: 2 ** 14, r: 8, p: 1 }).toString('base64')}`;
  await first.parley.realms.forHost('')!.ask('users.create', null, { email: 'old@zulip.com', fullName: 'Old Hash', role: Role.member, passwordHash: firstFormat, timezone: 'UTC' });
  await first.parley.close();
  const again = await startTestServer({ dataDir: first.config.dataDir, passwordHashCost: 6 });
  try {
    for (const [username, password] of [['cost@zulip.com', 'made at five'], ['old@zulip.com', 'made long ago']]) {
      const ok = await again.anonymous.post('/fetch_api_key', { username, password });
      assert.is(ok.status, 200, `${username}: ${JSON.stringify(ok.body)}`);
      assert.is((await again.anonymous.post('/fetch_api_key', { username, password: `not ${password}` })).status, 401);
    }
  } finally {
    await again.stop();
  }
});

keys('after 5 failed attempts a username is locked out (429, Retry-After), others are not', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  await iago.post('/users', { email: 'target@zulip.com', full_name: 'Target', password: 'right-one' });
  for (let i = 0; i < 5; i++) assert.is((await server.anonymous.post('/fetch_api_key', { username: 'target@zulip.com', password: `guess ${i}` })).status, 401);
  const locked = await server.anonymous.post('/fetch_api_key', { username: 'target@zulip.com', password: 'right-one' });
  assert.equal([locked.status, locked.body.code], [429, 'RATE_LIMIT_HIT']);
  assert.ok(Number(locked.headers['retry-after']) > 0);
  assert.ok(Number(locked.body['retry-after']) > 1700, 'about 30 minutes');
  const other = await server.anonymous.post('/fetch_api_key', { username: 'pw@zulip.com', password: 'correct horse' });
  assert.is(other.status, 200);
});

keys('a JWT signed with the configured key returns the key, and the user when asked', async ({ server }) => {
  const token = await sign({ email: 'hamlet@zulip.com' });
  const plain = await server.anonymous.post('/jwt/fetch_api_key', { token });
  assert.is(plain.status, 200, JSON.stringify(plain.body));
  // The reference has no JWT operation; the spec gives the fields.
  assert.equal(Object.keys(plain.body).sort(), ['api_key', 'email', 'msg', 'result']);
  const withProfile = await server.anonymous.post('/jwt/fetch_api_key', { token, include_profile: true });
  assert.equal(Object.keys(withProfile.body).sort(), ['api_key', 'email', 'msg', 'result', 'user']);
  const user = withProfile.body.user as Record<string, unknown>;
  assertMatchesComponent('User', user, specUserFields);
  assert.is(user.email, 'hamlet@zulip.com');
  assert.not.ok('profile_data' in user);
  const me = await server.anonymous.withCredentials({ email: 'hamlet@zulip.com', apiKey: String(plain.body.api_key) }).get('/users/me');
  assert.is(me.status, 200);
});

keys('a JWT signed with another key, expired, without e-mail, or for an unknown or deactivated user is refused', async ({ server }) => {
  const refusal = async (token: string) => (await server.anonymous.post('/jwt/fetch_api_key', { token })).body;
  assert.match(String((await refusal(await sign({ email: 'hamlet@zulip.com' }, 'another-secret-of-sufficient-length-too'))).msg), /signature verification failed/);
  assert.match(String((await refusal(await sign({ email: 'hamlet@zulip.com' }, secret, '-1m'))).msg), /expired/);
  assert.match(String((await refusal(await sign({ name: 'no e-mail' }))).msg), /No email specified/);
  assert.is((await refusal(await sign({ email: 'ghost@zulip.com' }))).code, 'AUTHENTICATION_FAILED');
  assert.match(String((await refusal('not.a.jwt')).msg), /^Bad JSON web token/);
  const iago = await server.as('iago@zulip.com');
  const created = await iago.post('/users', { email: 'gone@zulip.com', full_name: 'Gone', password: 'secret-pw' });
  await iago.delete(`/users/${created.body.user_id}`);
  assert.is((await refusal(await sign({ email: 'gone@zulip.com' }))).code, 'USER_DEACTIVATED');
});

keys.run();

const rs256 = suite('JWT with a public key, and a realm without JWT');

rs256('an RS256 token verifies against the configured public key; a realm without a key refuses JWT', async () => {
  const rsa = await rsaKeys;
  const server = await startTestServer({ jwtKeys: { '': { key: rsa.publicKey, algorithms: ['RS256'] } } });
  try {
    const token = await new SignJWT({ email: 'othello@zulip.com' })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('5m')
      .sign(await importPKCS8(rsa.privateKey, 'RS256'));
    assert.is((await server.anonymous.post('/jwt/fetch_api_key', { token })).body.email, 'othello@zulip.com');
    assert.match(String((await server.anonymous.post('/jwt/fetch_api_key', { token: await sign({ email: 'othello@zulip.com' }) })).body.msg), /^Bad JSON web token/);
  } finally {
    await server.stop();
  }
  const withoutJwt = await startTestServer();
  try {
    const response = await withoutJwt.anonymous.post('/jwt/fetch_api_key', { token: await sign({ email: 'hamlet@zulip.com' }) });
    assert.equal(response.body, { result: 'error', code: 'BAD_REQUEST', msg: 'JWT authentication is not enabled for this organization' });
  } finally {
    await withoutJwt.stop();
  }
});

rs256.run();
