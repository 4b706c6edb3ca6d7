// Invitations: reusable links made by those the organization allows, listed and revoked, opening a
// page where a person creates their account (with the link's role, channels and groups); e-mail
// invitations checked and then refused for want of a mail transport.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { TestClock } from './helpers/clock.js';
import { ApiClient } from './helpers/client.js';
import { pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const invites = suite<{ server: TestServer }>('invitations');
const clock = new TestClock();

invites.before(async (context) => {
  context.server = await startTestServer({ clock });
});
invites.after(async ({ server }) => server.stop());

type Invite = { id: number; link_url: string; invited_as: number; expiry_date: number | null; invited_by_user_id: number; is_multiuse: boolean };

/** The invitation page of a link, as a browser gets it (GET), or the form sent back (POST). */
async function joinPage(server: TestServer, link: string, form?: Record<string, string>) {
  const path = new URL(link).pathname;
  const response = await fetch(`${server.baseUrl}${path}`, form ? { method: 'POST', body: new URLSearchParams(form) } : {});
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

const channelId = async (client: ApiClient, name: string) => Number((await client.get('/get_stream_id', { stream: name })).body.stream_id);

invites('an administrator makes a link; a person joins through it with its role, channels and groups', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { queueId } = await register(iago, { event_types: ['invites_changed', 'realm_user'] });
  const denmark = await channelId(iago, 'Denmark');
  const group = await iago.post('/user_groups/create', { name: 'newcomers', description: 'new people', members: [] });
  const groupId = Number(group.body.group_id);
  const made = await iago.post('/invites/multiuse', { invite_as: 300, stream_ids: [denmark], group_ids: [groupId], invite_expires_in_minutes: 60 });
  assertMatchesReference('POST /invites/multiuse', made.body);
  const link = String(made.body.invite_link);
  assert.match(link, /^http:\/\/[^/]+\/join\/[0-9a-f]{24}\/$/);
  const [changed] = await pollEvents(iago, queueId, 1);
  assertEventMatchesReference(changed!);
  assert.is(changed!.type, 'invites_changed');

  const listed = await iago.get('/invites');
  assertMatchesReference('GET /invites', listed.body);
  const invite = (listed.body.invites as Invite[]).find((entry) => entry.link_url === link)!;
  assert.equal([invite.invited_as, invite.is_multiuse, invite.expiry_date! - Math.floor(clock.now() / 1000) <= 3600], [300, true, true]);

  const form = await joinPage(server, link);
  assert.equal([form.status, form.type], [200, 'text/html; charset=utf-8']);
  assert.match(form.html, /<label for="email">E-mail address<\/label>/);

  const refused = await joinPage(server, link, { email: 'hamlet@zulip.com', full_name: 'Another Hamlet', password: 'long enough' });
  assert.equal([refused.status, /Email is already in use\./.test(refused.html), /value="Another Hamlet"/.test(refused.html)], [400, true, true]);
  const joined = await joinPage(server, link, { email: 'ophelia@zulip.com', full_name: 'Ophelia', password: 'long enough' });
  assert.equal([joined.status, /ophelia@zulip\.com/.test(joined.html)], [200, true], joined.html);

  // She signs in with her password, as a moderator, in Denmark and the group.
  const key = await server.anonymous.post('/fetch_api_key', { username: 'ophelia@zulip.com', password: 'long enough' });
  assert.is(key.status, 200);
  const ophelia = new ApiClient(server.baseUrl, { email: 'ophelia@zulip.com', apiKey: String(key.body.api_key) });
  const me = await ophelia.get('/users/me');
  assert.is(me.body.role, 300);
  const subscriptions = (await ophelia.get('/users/me/subscriptions')).body.subscriptions as { name: string }[];
  assert.ok(subscriptions.some((subscription) => subscription.name === 'Denmark'));
  assert.ok(((await iago.get(`/user_groups/${groupId}/members`)).body.members as number[]).includes(Number(me.body.user_id)));
  const added = (await pollEvents(iago, queueId, 1, changed!.id)).find((event) => event.type === 'realm_user');
  assert.is(added?.op, 'add');

  // A link stops working when it expires.
  clock.advance(61 * 60 * 1000);
  const expired = await joinPage(server, link);
  assert.equal([expired.status, /The registration link has expired or is not valid\./.test(expired.html)], [400, true]);
  assert.not.ok(((await iago.get('/invites')).body.invites as Invite[]).some((entry) => entry.link_url === link));
});

invites('who may make links, for which roles and channels; revoking', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const refused = async (client: ApiClient, params: Record<string, unknown>, msg: string) => {
    const answer = await client.post('/invites/multiuse', params);
    assert.equal([answer.status, answer.body.msg], [400, msg], JSON.stringify(params));
    // The reference's 400 is a oneOf of CodedError branches no body can tell apart: check the branch.
    assertMatchesComponent('CodedError', answer.body);
  };
  await refused(hamlet, {}, 'Insufficient permission');
  await refused(iago, { invite_as: 100 }, 'Insufficient permission');
  await refused(iago, { stream_ids: [999999] }, 'Invalid channel ID 999999. No invites were sent.');
  assert.equal((await hamlet.get('/invites')).body.invites, []);

  const owners = String((await desdemona.post('/invites/multiuse', { invite_as: 100, invite_expires_in_minutes: null })).body.invite_link);
  const [invite] = ((await iago.get('/invites')).body.invites as Invite[]).filter((entry) => entry.link_url === owners);
  assert.is(invite!.expiry_date, null, 'never expires');
  assert.is((await hamlet.delete(`/invites/multiuse/${invite!.id}`)).body.msg, 'Insufficient permission');
  const revoked = await iago.delete(`/invites/multiuse/${invite!.id}`);
  assertMatchesReference('DELETE /invites/multiuse/{invite_id}', revoked.body);
  for (const [id, msg] of [[invite!.id, 'Invitation has already been revoked'], [999999, 'No such invitation']] as const) {
    const again = await iago.delete(`/invites/multiuse/${id}`);
    assert.equal([again.status, again.body.msg], [400, msg]);
    assertMatchesComponent('CodedError', again.body);
  }
  assert.is((await joinPage(server, owners)).status, 400, 'a revoked link opens nothing');
  assert.is((await joinPage(server, `${server.baseUrl}/join/${'0'.repeat(24)}/`)).status, 400);
});

invites('e-mail invitations are checked, then refused: the server has no mail transport', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const send = (client: ApiClient, emails: string) => client.post('/invites', { invitee_emails: emails, stream_ids: [] });
  assert.is((await send(polonius, 'new@example.com')).body.msg, 'Insufficient permission');
  const none = await send(hamlet, ' , ');
  assert.equal([none.status, none.body.msg], [400, 'You must specify at least one email address.']);
  assertMatchesComponent('CodedError', none.body);
  const refused = await send(hamlet, 'new@example.com');
  assert.equal([refused.status, refused.body.code], [400, 'BAD_REQUEST']);
  assert.match(String(refused.body.msg), /no mail transport/);
  for (const response of [await hamlet.delete('/invites/1'), await hamlet.post('/invites/1/resend')]) assert.equal([response.status, response.body.msg], [400, 'No such invitation']);
  await assertRequiresCredentials(server.anonymous, [['GET', '/invites'], ['POST', '/invites'], ['POST', '/invites/multiuse'], ['DELETE', '/invites/multiuse/1'], ['DELETE', '/invites/1'], ['POST', '/invites/1/resend']]);
});

invites.run();
