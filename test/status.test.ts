// User status (spec endpoint 7): every rule and error of the spec, the event, and the state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const status = suite<{ server: TestServer }>('user status');

status.before(async (context) => {
  context.server = await startTestServer();
});
status.after(async ({ server }) => server.stop());

async function statusOf(client: ApiClient, of: ApiClient) {
  const id = (await of.get('/users/me')).body.user_id;
  const response = await client.get(`/users/${id}/status`);
  // The spec calls Zulip's zulip_extra_emoji service_extra_emoji.
  assertMatchesReference('GET /users/{user_id}/status', response.body, {
    properties: { reaction_type: { enum: ['unicode_emoji', 'realm_emoji', 'service_extra_emoji'] } },
    at: ['status'],
  });
  return response.body.status;
}

async function refused(client: ApiClient, params: Record<string, unknown>, msg: string): Promise<void> {
  const response = await client.post('/users/me/status', params);
  assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(params));
}

status('only the passed fields change; the empty string clears the text', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const set = await hamlet.post('/users/me/status', { status_text: '  On vacation  ' });
  assert.equal(set.body, { result: 'success', msg: '' });
  assert.equal(await statusOf(othello, hamlet), { status_text: 'On vacation' });
  await hamlet.post('/users/me/status', { emoji_name: 'car' });
  assert.equal(await statusOf(othello, hamlet), { status_text: 'On vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  await hamlet.post('/users/me/status', { status_text: '' });
  assert.equal(await statusOf(othello, hamlet), { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  await hamlet.post('/users/me/status', { emoji_name: '' });
  assert.equal(await statusOf(othello, hamlet), {});
});

status('status_text: 60 code points are accepted, 61 refused (code points, not UTF-16 units)', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const sixty = '😀'.repeat(60);
  assert.is(sixty.length, 120, 'each emoji is two UTF-16 units');
  assert.is((await cordelia.post('/users/me/status', { status_text: sixty })).status, 200);
  await refused(cordelia, { status_text: `${sixty}😀` }, 'status_text is too long (limit: 60 characters)');
});

status('every error of the spec, and nothing changes', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  await prospero.post('/users/me/status', { status_text: 'Reading' });
  await refused(prospero, {}, 'Client did not pass any new values.');
  await refused(prospero, { emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await refused(prospero, { reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await refused(prospero, { emoji_name: 'no_such_emoji_anywhere' }, "Emoji 'no_such_emoji_anywhere' does not exist");
  await refused(prospero, { emoji_name: 'car', emoji_code: '1f600', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.');
  await refused(prospero, { emoji_name: 'car', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.');
  await refused(prospero, { emoji_name: 'party', emoji_code: '9999', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.');
  await refused(prospero, { status_text: 'x'.repeat(61), emoji_name: 'car' }, 'status_text is too long (limit: 60 characters)');
  assert.equal(await statusOf(prospero, prospero), { status_text: 'Reading' }, 'no refused request changed anything');
});

status("Zulip's extra emoji and away (the inverse of presence_enabled)", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  assert.is((await iago.post('/users/me/status', { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' })).status, 200);
  assert.is((await iago.post('/users/me/status', { away: true })).status, 200);
  assert.equal(await statusOf(iago, iago), { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji', away: true });
});

status('a status change is announced to everyone; register + events == a fresh register', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const before = await register(polonius, { client_gravatar: false, slim_presence: true });
  await othello.post('/users/me/status', { status_text: 'Jealous', emoji_name: 'angry' });
  await othello.post('/users/me/status', { status_text: '' });
  await othello.post('/users/me/status', { away: true });
  const events = (await polonius.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  // Going away turns presence off, which Zulip announces as presence too (shown offline).
  assert.equal(events.map((event) => event.type), ['user_status', 'user_status', 'user_status', 'presence']);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(polonius, { client_gravatar: false, slim_presence: true })).state));
});

status("an administrator sets another user's status; others may not", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const hamletId = Number((await hamlet.get('/users/me')).body.user_id);
  const watcher = await register(othello, { event_types: ['user_status'] });
  const set = await iago.post(`/users/${hamletId}/status`, { status_text: 'On leave', emoji_name: 'car' });
  assertMatchesReference('POST /users/{user_id}/status', set.body);
  assert.equal((await othello.get(`/users/${hamletId}/status`)).body.status, { status_text: 'On leave', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  const events = (await othello.get('/events', { queue_id: watcher.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => [event.user_id, event.status_text]), [[hamletId, 'On leave']]);
  for (const [client, path, params, message] of [
    [othello, `/users/${hamletId}/status`, { status_text: 'Hijacked' }, 'Insufficient permission'],
    [iago, '/users/424242/status', { status_text: 'Nobody' }, 'No such user'],
    [iago, `/users/${hamletId}/status`, {}, 'Client did not pass any new values.'],
  ] as const) {
    const refused = await client.post(path, params);
    // The reference's 400 is a oneOf of schemas of one shape (CodedError), so that is what is checked.
    assertMatchesComponent('CodedError', refused.body);
    assert.equal([refused.status, refused.body.msg], [400, message]);
  }
  assert.is(((await othello.get(`/users/${hamletId}/status`)).body.status as { status_text: string }).status_text, 'On leave');
});

status('the status endpoints require credentials; an unknown user has no status', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/users/me/status'],
    ['GET', '/users/1/status'],
    ['POST', '/users/1/status'],
  ]);
  assert.is((await (await server.as('hamlet@zulip.com')).get('/users/424242/status')).status, 400);
});

status.run();
