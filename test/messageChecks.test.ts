// Questions about messages a client already has: who has read one (read receipts, when the
// organization allows them) and which belong in a narrow (GET /messages/matches_narrow).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import type { ApiClient } from './helpers/client.js';

const checks = suite<{ server: TestServer }>('message checks');

checks.before(async (context) => {
  context.server = await startTestServer();
});
checks.after(async ({ server }) => server.stop());

const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);
const send = async (client: ApiClient, params: Record<string, unknown>) => Number((await client.post('/messages', params)).body.id);

checks('read receipts: on in the demo organization (as in Zulip\'s development one), refused when turned off; readers, never the sender or those who opt out', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'receipts', content: 'Who reads this?' });
  assert.is((await hamlet.get(`/messages/${id}/read_receipts`)).status, 200);
  assert.is((await iago.patch('/realm', { enable_read_receipts: false })).status, 200);
  const disabled = await hamlet.get(`/messages/${id}/read_receipts`);
  assert.equal([disabled.status, disabled.body.msg], [400, 'Read receipts are disabled in this organization.']);
  assert.is((await iago.patch('/realm', { enable_read_receipts: true })).status, 200);
  assert.is((await cordelia.patch('/settings', { send_read_receipts: false })).status, 200);
  for (const reader of [othello, cordelia]) await reader.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' });
  const receipts = await hamlet.get(`/messages/${id}/read_receipts`);
  assertMatchesReference('GET /messages/{message_id}/read_receipts', receipts.body);
  assert.equal(receipts.body.user_ids, [await idOf(othello)], 'the sender reads their own message, but is not listed; cordelia opted out');
  assert.is((await hamlet.post(`/users/me/muted_users/${await idOf(othello)}`)).status, 200);
  assert.equal((await hamlet.get(`/messages/${id}/read_receipts`)).body.user_ids, [], 'users the requester muted are left out');
  await hamlet.delete(`/users/me/muted_users/${await idOf(othello)}`);
  const secret = await send(othello, { type: 'private', to: [await idOf(iago)], content: 'between us' });
  for (const messageId of [secret, 999_999]) {
    const refused = await hamlet.get(`/messages/${messageId}/read_receipts`);
    assert.equal([refused.status, refused.body.msg], [400, 'Invalid message(s)']);
    assertMatchesReference('GET /messages/{message_id}/read_receipts', refused.body, {}, 400);
  }
});

checks('matches_narrow answers the messages of the user that match, as GET /messages shows them', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const inTopic = await send(othello, { type: 'stream', to: 'Verona', topic: 'plans <b>', content: 'Meet at **noon**' });
  const elsewhere = await send(othello, { type: 'stream', to: 'Verona', topic: 'other', content: 'unrelated' });
  const notHis = await send(othello, { type: 'private', to: [await idOf(iago)], content: 'not for hamlet' });
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: 'plans <b>' }]);
  const matched = await hamlet.get('/messages/matches_narrow', { msg_ids: JSON.stringify([inTopic, elsewhere, notHis, 999_999]), narrow });
  assertMatchesReference('GET /messages/matches_narrow', matched.body);
  assert.equal(matched.body.messages, { [inTopic]: { match_content: '<p>Meet at <strong>noon</strong></p>', match_subject: 'plans &lt;b&gt;' } });
  const bad = await hamlet.get('/messages/matches_narrow', { msg_ids: JSON.stringify([inTopic]), narrow: JSON.stringify([{ operator: 'frobnicate', operand: 'x' }]) });
  assert.is(bad.status, 400);
  assert.is((await hamlet.get('/messages/matches_narrow', { narrow })).body.code, 'REQUEST_VARIABLE_MISSING');
});

checks('the message checks require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/messages/1/read_receipts'],
    ['GET', '/messages/matches_narrow'],
  ]);
});

checks.run();
