// Muted users (POST/DELETE /users/me/muted_users/{id}): Zulip's errors, `muted_users` in register
// and its events, and a muted sender's messages read for the muter, those already there and new ones.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { TestClock } from './helpers/clock.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const muting = suite<{ server: TestServer; clock: TestClock }>('muted users');

muting.before(async (context) => {
  context.clock = new TestClock();
  context.server = await startTestServer({ clock: context.clock });
});
muting.after(async ({ server }) => server.stop());

const MUTE = 'POST /users/me/muted_users/{muted_user_id}';
const UNMUTE = 'DELETE /users/me/muted_users/{muted_user_id}';

const userId = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', { content: 'from a muted sender?', ...params });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** Every event in a queue once the realm is idle. */
async function queued(server: TestServer, client: ApiClient, queueId: string): Promise<Event[]> {
  await server.parley.realms.idle();
  const response = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body.events as Event[];
}

const flagsOf = async (client: ApiClient, id: number): Promise<string[]> => ((await client.get(`/messages/${id}`)).body.message as { flags: string[] }).flags;

async function refused(request: Promise<{ status: number; body: Record<string, unknown> }>, msg: string): Promise<void> {
  const response = await request;
  assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg]);
  assertMatchesComponent('CodedError', response.body);
}

muting('muting is reported in register with its time, announced to the muter alone, and undone', async ({ server, clock }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const prosperoId = await userId(prospero);
  // The mute's time is the server's clock's (queues registered later, so they do not expire).
  clock.advance(3_600_000);
  const before = await register(cordelia, { client_gravatar: false });
  const watcher = await register(prospero, { event_types: ['muted_users'] });
  assert.equal(before.state.muted_users, []);
  const earliest = Math.floor(clock.now() / 1000);
  const muted = await cordelia.post(`/users/me/muted_users/${prosperoId}`);
  assert.is(muted.status, 200, JSON.stringify(muted.body));
  assertMatchesReference(MUTE, muted.body);
  const latest = Math.floor(clock.now() / 1000);
  const registered = (await register(cordelia, { fetch_event_types: ['muted_users'] })).state;
  assertMatchesReference('POST /register', registered);
  const [entry, ...others] = registered.muted_users as { id: number; timestamp: number }[];
  assert.equal([entry!.id, others], [prosperoId, []]);
  assert.ok(entry!.timestamp >= earliest && entry!.timestamp <= latest, `muted at ${entry!.timestamp}`);
  const unmuted = await cordelia.delete(`/users/me/muted_users/${prosperoId}`);
  assert.is(unmuted.status, 200, JSON.stringify(unmuted.body));
  assertMatchesReference(UNMUTE, unmuted.body);
  const all = await queued(server, cordelia, before.queueId);
  const events = all.filter((event) => event.type === 'muted_users');
  assert.equal(events.map((event) => event.muted_users), [[entry], []]);
  for (const event of events) assertEventMatchesReference(event);
  const theirs = await queued(server, prospero, watcher.queueId);
  assert.equal(theirs.filter((event) => event.type === 'muted_users'), [], 'the muted user is not told');
  for (const event of all) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { client_gravatar: false })).state));
});

muting("Zulip's errors: self, an unknown user, twice, not muted", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const [hamletId, iagoId] = [await userId(hamlet), await userId(iago)];
  await refused(hamlet.post(`/users/me/muted_users/${hamletId}`), 'Cannot mute self');
  await refused(hamlet.post('/users/me/muted_users/999999'), 'No such user');
  await refused(hamlet.delete('/users/me/muted_users/999999'), 'No such user');
  await refused(hamlet.delete(`/users/me/muted_users/${iagoId}`), 'User is not muted');
  assert.is((await hamlet.post(`/users/me/muted_users/${iagoId}`)).status, 200);
  await refused(hamlet.post(`/users/me/muted_users/${iagoId}`), 'User already muted');
  assert.is((await hamlet.delete(`/users/me/muted_users/${iagoId}`)).status, 200);
  assert.equal((await register(hamlet, { fetch_event_types: ['muted_users'] })).state.muted_users, []);
});

muting("a muted sender's unread messages are marked read on muting, new ones arrive read, until unmuted", async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const [othelloId, desdemonaId] = [await userId(othello), await userId(desdemona)];
  const earlier = await send(desdemona, { type: 'direct', to: [othelloId] });
  const inChannel = await send(desdemona, { type: 'stream', to: 'Venice', topic: 'muted' });
  assert.not.ok((await flagsOf(othello, earlier)).includes('read'));
  const before = await register(othello, { client_gravatar: false });
  assert.is((await othello.post(`/users/me/muted_users/${desdemonaId}`)).status, 200);
  assert.ok((await flagsOf(othello, earlier)).includes('read'), 'marked read on muting');
  assert.ok((await flagsOf(othello, inChannel)).includes('read'));
  const direct = await send(desdemona, { type: 'direct', to: [othelloId] });
  const channel = await send(desdemona, { type: 'stream', to: 'Venice', topic: 'muted' });
  assert.ok((await flagsOf(othello, direct)).includes('read'), 'a new direct message arrives read');
  assert.ok((await flagsOf(othello, channel)).includes('read'), 'a new channel message arrives read');
  const events = await queued(server, othello, before.queueId);
  const flagged = events.find((event) => event.type === 'update_message_flags')!;
  assert.equal([flagged.op, flagged.flag, (flagged.messages as number[]).sort((a, b) => a - b)], ['add', 'read', [earlier, inChannel]]);
  assertEventMatchesReference(flagged);
  const delivered = events.filter((event) => event.type === 'message');
  assert.equal(delivered.map((event) => (event.flags as string[]).includes('read')), [true, true]);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(othello, { client_gravatar: false })).state));
  assert.not.ok((await flagsOf(await server.as('iago@zulip.com'), channel)).includes('read'), 'those who did not mute her are not affected');
  assert.is((await othello.delete(`/users/me/muted_users/${desdemonaId}`)).status, 200);
  const after = await send(desdemona, { type: 'direct', to: [othelloId] });
  assert.not.ok((await flagsOf(othello, after)).includes('read'), 'unmuted: unread again');
});

muting('the muting endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/users/me/muted_users/1'],
    ['DELETE', '/users/me/muted_users/1'],
  ]);
});

muting.run();
