// Personal settings through PATCH /settings: every setting register reports can be changed, is
// stored, and is announced — as `user_settings` events, and in the legacy shapes only to clients
// that did not declare `user_settings_object` — and register + events == a fresh register for the
// state these changes touch (settings, bots, starred messages, recent direct messages).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, MODERN_CAPABILITIES, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, requestSchema } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, type TestServer } from './helpers/server.js';

const settings = suite<{ server: TestServer }>('personal settings');

settings.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
settings.after(async ({ server }) => server.stop());

const drain = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  ((await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[]).filter((event) => event.type !== 'heartbeat');

type Setting = { type?: string; enum?: unknown[] };
/** Valid values other than the default for the settings whose type alone does not give one. */
const otherValues: Record<string, unknown> = {
  default_language: 'de',
  web_home_view: 'recent_topics',
  emojiset: 'twitter',
  timezone: 'Europe/Berlin',
  notification_sound: 'ding',
  web_font_size_px: 14,
  web_line_height_percent: 122,
  email_notifications_batching_period_seconds: 300,
};

/** A different valid value for each setting, read from the current value and the reference's
 * parameter schema of PATCH /settings. */
function changedValues(current: Record<string, unknown>, schema: Record<string, Setting>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(current)) {
    const parameter = schema[name];
    if (!parameter) continue;
    if (parameter.type === 'boolean') changes[name] = !value;
    else if (parameter.enum) changes[name] = parameter.enum.find((choice) => choice !== value);
    else changes[name] = otherValues[name];
  }
  return changes;
}

settings('every setting in user_settings can be changed, is stored, and is announced to the user alone', async ({ server }) => {
  const patchSchema = requestSchema('PATCH /settings') as Record<string, Setting>;
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  // Otherwise today's client (subscriptions' inherited settings null, say): only user_settings_object differs.
  const modern = await register(hamlet, { slim_presence: true, client_capabilities: { ...MODERN_CAPABILITIES, user_settings_object: true } });
  const legacy = await register(hamlet, { slim_presence: true, client_capabilities: MODERN_CAPABILITIES });
  const other = await register(othello, { event_types: ['user_settings', 'update_display_settings', 'update_global_notifications'] });
  const current = modern.state.user_settings as Record<string, unknown>;
  const changes = changedValues(current, patchSchema);
  assert.equal(
    Object.keys(current).filter((name) => !(name in changes) && !['available_notification_sounds', 'emojiset_choices'].includes(name)),
    [],
    'every reported setting is a parameter of PATCH /settings',
  );
  const response = await hamlet.patch('/settings', changes);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.not.ok('ignored_parameters_unsupported' in response.body, JSON.stringify(response.body.ignored_parameters_unsupported));
  const fresh = (await register(hamlet, { client_capabilities: { user_settings_object: true } })).state.user_settings as Record<string, unknown>;
  for (const [name, value] of Object.entries(changes)) assert.equal(fresh[name], value, name);

  const modernEvents = await drain(hamlet, modern.queueId);
  const settingEvents = modernEvents.filter((event) => event.type === 'user_settings');
  assert.equal(settingEvents.map((event) => event.property).sort(), Object.keys(changes).sort());
  assert.not.ok(modernEvents.some((event) => event.type === 'update_display_settings' || event.type === 'update_global_notifications'));
  const legacyEvents = await drain(hamlet, legacy.queueId);
  assert.ok(legacyEvents.some((event) => event.type === 'update_display_settings' && event.setting_name === 'emojiset'));
  assert.ok(legacyEvents.some((event) => event.type === 'update_global_notifications' && event.notification_name === 'enable_sounds'));
  for (const event of [...modernEvents, ...legacyEvents]) assertEventMatchesReference(event);
  assert.equal(
    (await drain(othello, other.queueId)).filter((event) => event.type !== 'realm_user' && event.type !== 'user_status'),
    [],
    "others see no one's settings",
  );
  for (const [registered, capabilities] of [
    [modern, { ...MODERN_CAPABILITIES, user_settings_object: true }],
    [legacy, MODERN_CAPABILITIES],
  ] as const) {
    const events = registered === modern ? modernEvents : legacyEvents;
    for (const event of events) applyEvent(registered.state, event);
    assert.equal(comparable(registered.state), comparable((await register(hamlet, { slim_presence: true, client_capabilities: capabilities })).state));
  }
  assert.equal((await hamlet.get('/users/me')).body.timezone, 'Europe/Berlin');
  // Aliases the time zone database knows, as the UTC register reports for new users.
  for (const timezone of ['UTC', 'US/Eastern']) assert.is((await hamlet.patch('/settings', { timezone })).status, 200, timezone);
  assert.is((await hamlet.patch('/settings', { timezone: 'utc' })).status, 400);
});

settings("values of the right type that Zulip refuses are refused, and nothing changes", async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const before = (await register(cordelia)).state.user_settings;
  for (const [name, value, message] of [
    ['default_language', 'xx', 'Invalid default_language'],
    ['emojiset', 'apple', 'Invalid emojiset'],
    ['web_home_view', 'nowhere', 'Invalid web_home_view'],
    ['notification_sound', 'klaxon', "Invalid notification sound 'klaxon'"],
    ['email_notifications_batching_period_seconds', 5, 'Invalid email_notifications_batching_period_seconds'],
    ['timezone', 'Mars/Olympus_Mons', 'Mars/Olympus_Mons is not a recognized time zone'],
    ['color_scheme', 7, 'Invalid color_scheme'],
  ] as const) {
    const response = await cordelia.patch('/settings', { enter_sends: true, [name]: value });
    assert.equal([response.status, response.body.msg], [400, message], name);
    assertMatchesComponent('CodedError', response.body);
  }
  assert.equal((await register(cordelia)).state.user_settings, before);
  await assertRequiresCredentials(cordelia.withCredentials(undefined), [['PATCH', '/settings']]);
});

settings('register + events == a fresh register: bots, starred messages and recent direct messages', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);
  const [cordeliaId, othelloId] = [await idOf(cordelia), await idOf(othello)];
  const options = { client_gravatar: false };
  const before = { cordelia: await register(cordelia, options), iago: await register(iago, options), othello: await register(othello, options) };
  const ok = (response: { status: number; body: unknown }) => assert.is(response.status, 200, JSON.stringify(response.body));
  const bot = await cordelia.post('/bots', { full_name: 'Cordelia bot', short_name: 'cordy' });
  ok(bot);
  ok(await othello.post('/messages', { type: 'private', to: [cordeliaId], content: 'one to one' }));
  const group = await othello.post('/messages', { type: 'private', to: [cordeliaId, await idOf(iago)], content: 'three of us' });
  ok(group);
  ok(await cordelia.post('/messages/flags', { messages: [group.body.id], op: 'add', flag: 'starred' }));
  // A member's bot is deactivated with its owner, then reactivated alone: administrators see both.
  const maker = await iago.post('/users', { email: 'botmaker@zulip.com', full_name: 'Bot Maker', password: 'secret-pw' });
  ok(maker);
  const makerClient = iago.withCredentials({ email: 'botmaker@zulip.com', apiKey: (await server.parley.realms.forHost('')!.ask('users.apiKey', null, { email: 'botmaker@zulip.com' })).apiKey });
  const makersBot = await makerClient.post('/bots', { full_name: 'Maker bot', short_name: 'maker' });
  ok(makersBot);
  ok(await iago.delete(`/users/${maker.body.user_id}`));
  ok(await iago.post(`/users/${makersBot.body.user_id}/reactivate`));
  ok(await cordelia.post('/messages', { type: 'private', to: [othelloId], content: 'reply' }));
  for (const [client, registered] of [
    [cordelia, before.cordelia],
    [iago, before.iago],
    [othello, before.othello],
  ] as const) {
    const events = await drain(client, registered.queueId);
    for (const event of events) {
      if (event.type === 'realm_bot') assertEventMatchesReference(event);
      applyEvent(registered.state, event);
    }
    assert.equal(comparable(registered.state), comparable((await register(client, options)).state), client.email);
  }
  const cordeliaState = (await register(cordelia)).state;
  assert.equal(cordeliaState.starred_messages, [group.body.id]);
  assert.equal((cordeliaState.realm_bots as { full_name: string }[]).map((entry) => entry.full_name), ['Cordelia bot']);
  assert.equal((cordeliaState.recent_private_conversations as { user_ids: number[] }[])[0]!.user_ids, [othelloId]);
  assert.equal(((await register(othello)).state.realm_bots as unknown[]).length, 0, "a member does not see others' bots");
});

settings.run();
