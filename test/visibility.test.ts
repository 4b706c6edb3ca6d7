// Who sees a user's real e-mail address (Zulip's email_address_visibility), as the User object,
// the lookup by e-mail, client_gravatar and the events of a change show it; and PATCH /settings.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const visibility = suite<{ server: TestServer }>('e-mail visibility and settings');

visibility.before(async (context) => {
  context.server = await startTestServer();
});
visibility.after(async ({ server }) => server.stop());

type User = { user_id: number; email: string; delivery_email: string | null; avatar_url: string | null; timezone: string; full_name: string; profile_data?: object };
const seenBy = async (viewer: ApiClient, userId: number): Promise<User> => (await viewer.get(`/users/${userId}`)).body.user as User;
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
const eventsOf = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];

visibility('administrators-only: members see the dummy address and no delivery_email; administrators see it', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const id = await idOf(prospero);
  const watchers = { othello: await register(othello, { client_gravatar: false }), iago: await register(iago, { client_gravatar: false }) };
  assert.is((await prospero.patch('/settings', { email_address_visibility: 3 })).status, 200);
  const byMember = await seenBy(othello, id);
  assert.equal([byMember.email, byMember.delivery_email], [`user${id}@localhost`, null]);
  assert.match(String(byMember.avatar_url), /gravatar/, 'client_gravatar cannot apply without the real address');
  const byAdmin = await seenBy(iago, id);
  assert.equal([byAdmin.email, byAdmin.delivery_email], [`user${id}@localhost`, 'prospero@zulip.com'], 'the API e-mail is the same for everyone');
  assert.is((await seenBy(prospero, id)).delivery_email, 'prospero@zulip.com', 'a user always sees their own');
  assert.is((await othello.get('/users/prospero@zulip.com')).status, 400, 'the real address finds the user only for those who may see it');
  assert.is(((await iago.get('/users/prospero@zulip.com')).body.user as User).user_id, id);
  assert.is(((await othello.get(`/users/user${id}@localhost`)).body.user as User).user_id, id, 'the dummy form works for everyone');

  const othelloEvents = await eventsOf(othello, watchers.othello.queueId);
  assert.equal(othelloEvents.map((event) => event.person), [{ user_id: id, new_email: `user${id}@localhost` }, { user_id: id, delivery_email: null }]);
  const iagoEvents = await eventsOf(iago, watchers.iago.queueId);
  assert.equal(iagoEvents.map((event) => event.person), [{ user_id: id, new_email: `user${id}@localhost` }]);
  for (const event of [...othelloEvents, ...iagoEvents]) assertEventMatchesReference(event);
  for (const [client, watcher, events] of [
    [othello, watchers.othello, othelloEvents],
    [iago, watchers.iago, iagoEvents],
  ] as const) {
    for (const event of events) applyEvent(watcher.state, event);
    assert.equal(comparable(watcher.state), comparable((await register(client, { client_gravatar: false })).state), client.email);
  }
});

visibility("register's user list: each viewer's visibility and client_gravatar, and a change at once", async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const id = await idOf(polonius);
  const listed = async (viewer: ApiClient, clientGravatar: boolean): Promise<User> =>
    ((await register(viewer, { fetch_event_types: ['realm_user'], client_gravatar: clientGravatar })).state.realm_users as User[]).find((user) => user.user_id === id)!;
  assert.is((await polonius.patch('/settings', { email_address_visibility: 3 })).status, 200);
  // The same user listed for viewers of each visibility and each client_gravatar, one after another.
  assert.equal([(await listed(othello, true)).delivery_email, (await listed(iago, true)).delivery_email, (await listed(polonius, true)).delivery_email], [null, 'polonius@zulip.com', 'polonius@zulip.com']);
  assert.match(String((await listed(othello, true)).avatar_url), /gravatar/, 'client_gravatar cannot apply without the real address');
  assert.is((await listed(iago, true)).avatar_url, null);
  assert.match(String((await listed(iago, false)).avatar_url), /gravatar/);
  assert.is((await polonius.patch('/settings', { full_name: 'Polonius Renamed' })).status, 200);
  assert.equal([(await listed(othello, true)).full_name, (await listed(iago, true)).full_name], ['Polonius Renamed', 'Polonius Renamed']);
  assert.is((await polonius.patch('/settings', { email_address_visibility: 1 })).status, 200);
  assert.is((await listed(othello, true)).delivery_email, 'polonius@zulip.com');
  // GET /users lists the same entries, with profile data only when asked (register always has it).
  const members = async (params: Record<string, unknown>) => ((await iago.get('/users', params)).body.members as User[]).find((user) => user.user_id === id)!;
  assert.ok((await listed(iago, false)).profile_data !== undefined);
  assert.is((await members({})).profile_data, undefined);
  assert.equal((await members({ include_custom_profile_fields: true })).profile_data, (await listed(iago, false)).profile_data);
  assert.is((await members({ client_gravatar: true })).avatar_url, null);
  assert.equal((await members({})).full_name, 'Polonius Renamed');
});

visibility('nobody: not even administrators; bots are always visible', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  await cordelia.patch('/settings', { email_address_visibility: 4 });
  assert.is((await seenBy(desdemona, await idOf(cordelia))).delivery_email, null);
  const bot = await cordelia.post('/bots', { full_name: 'Visible', short_name: 'visible' });
  assert.match(String((await seenBy(desdemona, Number(bot.body.user_id))).delivery_email), /visible-bot@/);
});

visibility('PATCH /settings: the own user_settings event, time zone and name; bad values are refused', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const own = await register(hamlet, { event_types: ['user_settings'] });
  assert.is((await hamlet.patch('/settings', { email_address_visibility: 2 })).status, 200);
  assert.equal((await eventsOf(hamlet, own.queueId)).map((event) => [event.property, event.value]), [['email_address_visibility', 2]]);
  assert.is((await hamlet.patch('/settings', { email_address_visibility: 9 })).status, 400);
  assert.is((await hamlet.patch('/settings', { timezone: 'Mars/Olympus_Mons' })).status, 400);
  assert.is((await hamlet.patch('/settings', { timezone: 'Europe/Copenhagen', full_name: 'Prince Hamlet' })).status, 200);
  const me = await seenBy(hamlet, await idOf(hamlet));
  assert.equal([me.timezone, me.full_name], ['Europe/Copenhagen', 'Prince Hamlet']);
  const ignored = await hamlet.patch('/settings', { no_such_setting: true, full_name: 'King Hamlet' });
  assert.equal(ignored.body.ignored_parameters_unsupported, ['no_such_setting']);
  await assertRequiresCredentials(server.anonymous, [['PATCH', '/settings']]);
});

visibility.run();
