// Organization settings (PATCH /realm): administrators change them, owners alone the sensitive
// ones; a request is checked whole before anything changes; every change reaches the organization
// in Zulip's event shapes, and register + events equals a fresh register.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const realm = suite<{ server: TestServer }>('organization settings');

realm.before(async (context) => {
  context.server = await startTestServer();
});
realm.after(async ({ server }) => server.stop());

const realmState = async (server: TestServer) => (await register(await server.as('hamlet@zulip.com'), { fetch_event_types: ['realm'] })).state;

realm('an administrator changes settings; the answer names what changed, strings as "updated"', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const changed = await iago.patch('/realm', { name: 'Parley Lab', description: 'Where we *test*', inline_image_preview: false, message_content_edit_limit_seconds: 'unlimited', move_messages_within_stream_limit_seconds: 3600 });
  assert.is(changed.status, 200);
  assert.equal(
    { name: changed.body.name, description: changed.body.description, preview: changed.body.inline_image_preview, edit: changed.body.message_content_edit_limit_seconds, move: changed.body.move_messages_within_stream_limit_seconds },
    { name: 'updated', description: 'updated', preview: false, edit: null, move: 3600 },
  );
  const state = await realmState(server);
  assert.equal(
    [state.realm_name, state.realm_description, state.realm_inline_image_preview, state.realm_message_content_edit_limit_seconds, state.realm_move_messages_within_stream_limit_seconds],
    ['Parley Lab', 'Where we *test*', false, null, 3600],
  );
  const unchanged = await iago.patch('/realm', { name: 'Parley Lab' });
  assert.equal(Object.keys(unchanged.body).sort(), ['msg', 'result'], 'a setting already at its value is not reported');
});

realm("GET /server_settings shows the organization's name and description as they change", async ({ server }) => {
  const settings = async () => (await server.anonymous.get('/server_settings')).body;
  const before = await settings();
  const iago = await server.as('iago@zulip.com');
  assert.is((await iago.patch('/realm', { name: 'Settings Lab', description: 'Renamed *today*' })).status, 200);
  const after = await settings();
  assert.equal([after.realm_name, after.realm_description], ['Settings Lab', 'Renamed *today*']);
  assert.not.equal(after.realm_name, before.realm_name);
});

realm('members may not; owner-only settings need an owner; bad values change nothing', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  assert.equal([(await hamlet.patch('/realm', { name: 'Mine' })).body.code], ['UNAUTHORIZED_PRINCIPAL']);
  for (const params of [{ invite_required: false }, { waiting_period_threshold: 3 }, { message_retention_days: 30 }]) {
    const refused = await iago.patch('/realm', params);
    assert.equal([refused.status, refused.body.msg], [400, 'Must be an organization owner'], JSON.stringify(params));
  }
  assert.is((await desdemona.patch('/realm', { waiting_period_threshold: 3 })).status, 200);
  const before = comparable(await realmState(server));
  for (const [params, message] of [
    [{ name: 'Renamed', default_language: 'xx' }, "Invalid language 'xx'"],
    [{ name: 'Renamed', video_chat_provider: 42 }, 'Invalid video_chat_provider 42'],
    [{ name: 'Renamed', giphy_rating: 9 }, 'Invalid giphy_rating 9'],
    [{ name: 'Renamed', message_content_edit_limit_seconds: 0 }, 'Invalid message_content_edit_limit_seconds'],
    [{ name: 'Renamed', signup_announcements_stream_id: 999999 }, 'Invalid channel ID'],
    [{ name: 'Renamed', can_delete_own_message_group: { new: 999999 } }, 'Invalid user group ID: 999999'],
    [{ name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)'],
  ] as const) {
    const refused = await desdemona.patch('/realm', params);
    assert.equal([refused.status, refused.body.msg], [400, message], JSON.stringify(params));
  }
  assert.equal(comparable(await realmState(server)), before, 'refused requests change nothing');
});

realm("group settings check the client's old value", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const state = await realmState(server);
  const current = state.realm_can_delete_own_message_group;
  const moderators = Number(state.realm_can_delete_any_message_group);
  const stale = await iago.patch('/realm', { can_delete_own_message_group: { new: moderators, old: moderators + 1000 } });
  assert.equal([stale.status, stale.body.msg], [400, "'old' value does not match the expected value."]);
  const hamlet = Number((await (await server.as('hamlet@zulip.com')).get('/users/me')).body.user_id);
  const anonymous = { direct_members: [hamlet], direct_subgroups: [moderators] };
  const changed = await iago.patch('/realm', { can_delete_own_message_group: { new: anonymous, old: current } });
  assert.is(changed.status, 200, String(changed.body.msg));
  assert.equal((await realmState(server)).realm_can_delete_own_message_group, anonymous);
});

realm('every change is announced to the organization in Zulip shapes; register + events == a fresh register', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const before = await register(cordelia, { fetch_event_types: ['realm'], event_types: ['realm'] });
  const everyone = Number((await realmState(server)).realm_can_move_messages_between_topics_group);
  const administrators = Number((await realmState(server)).realm_can_delete_any_message_group);
  await iago.patch('/realm', { name: 'Events Lab', allow_message_editing: false, message_content_delete_limit_seconds: 120 });
  await iago.patch('/realm', { mandatory_topics: true, allow_edit_history: false, enable_spectator_access: true });
  await iago.patch('/realm', { can_create_public_channel_group: { new: administrators }, can_mention_many_users_group: { new: everyone } });
  await iago.patch('/realm', { move_messages_between_streams_limit_seconds: 'unlimited', new_stream_announcements_stream_id: -1 });
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.ok(events.some((event) => event.op === 'update_dict' && (event.data as Record<string, unknown>).allow_message_editing === false));
  assert.ok(events.some((event) => event.op === 'update' && event.property === 'create_public_stream_policy'), 'deprecated policies follow their group settings');
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { fetch_event_types: ['realm'] })).state));
});

realm("defaults for new users' settings: administrators set them, everyone is told, new users start with them", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const before = await register(hamlet, { fetch_event_types: ['realm_user_settings_defaults'], event_types: ['realm_user_settings_defaults'] });
  assert.is((await hamlet.patch('/realm/user_settings_defaults', { enter_sends: true })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  const refused = await iago.patch('/realm/user_settings_defaults', { enter_sends: true, emojiset: 'nope' });
  assert.equal([refused.status, refused.body.msg], [400, 'Invalid emojiset']);
  const changed = await iago.patch('/realm/user_settings_defaults', { enter_sends: true, emojiset: 'text', twenty_four_hour_time: true });
  assertMatchesReference('PATCH /realm/user_settings_defaults', changed.body);
  const events = (await hamlet.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => [event.property, event.value]), [['enter_sends', true], ['emojiset', 'text'], ['twenty_four_hour_time', true]], 'the refused request announced nothing');
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(hamlet, { fetch_event_types: ['realm_user_settings_defaults'] })).state));
  assert.is((await iago.post('/users', { email: 'newcomer@zulip.com', password: 'a-long-password', full_name: 'Newcomer' })).status, 200);
  const settings = (await register(await server.as('newcomer@zulip.com'), { fetch_event_types: ['user_settings'] })).state.user_settings as Record<string, unknown>;
  assert.equal([settings.enter_sends, settings.emojiset, settings.twenty_four_hour_time], [true, 'text', true]);
  const old = (await register(hamlet, { fetch_event_types: ['user_settings'] })).state.user_settings as Record<string, unknown>;
  assert.equal([old.enter_sends, old.emojiset], [false, 'google'], 'existing users keep their settings');
});

realm('the organization endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['PATCH', '/realm'],
    ['PATCH', '/realm/user_settings_defaults'],
  ]);
});

realm.run();
