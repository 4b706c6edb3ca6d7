// Custom profile fields and PATCH /users/me/profile_data (spec endpoint 14).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../src/http/json.js';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference, specUserFields } from './helpers/reference.js';
import { nestedArrays } from './helpers/nesting.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const profile = suite<{ server: TestServer; fields: Record<string, number> }>('custom profile fields');

profile.before(async (context) => {
  context.server = await startTestServer();
  const iago = await context.server.as('iago@zulip.com');
  const create = async (params: Record<string, unknown>) => {
    const response = await iago.post('/realm/profile_fields', params);
    assert.is(response.status, 200, JSON.stringify(response.body));
    return Number(response.body.id);
  };
  context.fields = {
    bio: await create({ name: 'Biography', field_type: 2, hint: 'About you' }),
    phone: await create({ name: 'Phone', field_type: 1 }),
    team: await create({ name: 'Team', field_type: 3, field_data: { ops: { text: 'Operations', order: '1' }, dev: { text: 'Development', order: '2' } } }),
    birthday: await create({ name: 'Birthday', field_type: 4 }),
    site: await create({ name: 'Website', field_type: 5 }),
    mentor: await create({ name: 'Mentor', field_type: 6 }),
    badge: await create({ name: 'Badge number', field_type: 1, editable_by_user: false }),
  };
});
profile.after(async ({ server }) => server.stop());

const profileOf = async (viewer: ApiClient, userId: number) => {
  const response = await viewer.get(`/users/${userId}`, { include_custom_profile_fields: true });
  assertMatchesReference('GET /users/{user_id}', response.body, { ...specUserFields, at: ['user'] });
  return (response.body.user as { profile_data: Record<string, { value: string; rendered_value?: string }> }).profile_data;
};
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

profile('administrators define fields; the list comes back in order, in Zulip\'s shape', async ({ server, fields }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.get('/realm/profile_fields');
  assertMatchesReference('GET /realm/profile_fields', response.body);
  const listed = response.body.custom_fields as { id: number; name: string; type: number; field_data: string }[];
  assert.equal(listed.map((field) => field.id), Object.values(fields));
  assert.equal(JSON.parse(listed.find((field) => field.id === fields.team)!.field_data), { ops: { text: 'Operations', order: '1' }, dev: { text: 'Development', order: '2' } });
  assert.is((await hamlet.post('/realm/profile_fields', { name: 'Sneaky', field_type: 1 })).body.code, 'UNAUTHORIZED_PRINCIPAL');
});

profile('a field of a type without choices keeps no field_data, as in Zulip', async ({ server, fields }) => {
  const iago = await server.as('iago@zulip.com');
  // Once stored as sent: nesting 10,000 deep overflowed the stack of the store's encoder (a 500).
  // A client's JSON now nests at most MAX_JSON_DEPTH deep; deeper is not valid JSON.
  const nested = (depth: number) => `{"a": ${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;
  const updated = await iago.patch(`/realm/profile_fields/${fields.phone}`, { field_data: nested(MAX_JSON_DEPTH) });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  const listed = (await iago.get('/realm/profile_fields')).body.custom_fields as { id: number; field_data: string }[];
  assert.is(listed.find((field) => field.id === fields.phone)!.field_data, '');
  const deeper = await iago.patch(`/realm/profile_fields/${fields.phone}`, { field_data: nested(10_000) });
  assert.equal([deeper.status, deeper.body.msg], [400, 'Argument "field_data" is not valid JSON.']);
});

profile('field definitions are checked', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  for (const [params, msg] of [
    [{ name: 'Phone', field_type: 1 }, 'A field with that label already exists.'],
    [{ name: 'Empty list', field_type: 3 }, 'Field must have at least one choice.'],
    [{ name: 'Odd', field_type: 42 }, 'Invalid field type.'],
    [{ name: '  ', field_type: 1 }, 'Label cannot be blank.'],
    [{ name: 'No order', field_type: 3, field_data: { a: { text: 'A' } } }, 'field_data is not a valid list of choices'],
    // Options are {text, order} and nothing more (nesting 10,000 deep in an option was a 500; a
    // client's JSON now nests at most MAX_JSON_DEPTH deep, which this reaches).
    [{ name: 'Nested', field_type: 3, field_data: `{"a": {"text": "A", "order": "1", "x": ${nestedArrays(MAX_JSON_DEPTH - 2)}}}` }, 'field_data is not a valid list of choices'],
    [{ name: 'Account', field_type: 7, field_data: { subtype: 'github', extra: { deep: [] } } }, 'field_data is not a valid external account'],
  ] as const) {
    const response = await iago.post('/realm/profile_fields', params);
    assert.equal([response.status, response.body.msg], [400, msg]);
  }
});

profile('each value is checked against its field type; null removes; text fields are rendered', async ({ server, fields }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const data = [
    { id: fields.bio, value: 'I am **the** prince' },
    { id: fields.team, value: 'dev' },
    { id: fields.birthday, value: '1600-02-29' },
    { id: fields.site, value: 'https://elsinore.example/hamlet' },
    { id: fields.mentor, value: [await idOf(othello)] },
  ];
  const response = await hamlet.patch('/users/me/profile_data', { data });
  assert.equal(response.body, { result: 'success', msg: '' });
  const seen = await profileOf(othello, await idOf(hamlet));
  assert.equal(seen[String(fields.bio)], { value: 'I am **the** prince', rendered_value: '<p>I am <strong>the</strong> prince</p>' });
  assert.equal(seen[String(fields.team)], { value: 'dev' }, 'no rendered_value for types without Markdown');
  assert.equal(seen[String(fields.mentor)], { value: JSON.stringify([await idOf(othello)]) });
  await hamlet.patch('/users/me/profile_data', { data: [{ id: fields.site, value: null }] });
  assert.not.ok(String(fields.site) in (await profileOf(othello, await idOf(hamlet))));
});

profile('an invalid item is refused and nothing in the request changes', async ({ server, fields }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  await cordelia.patch('/users/me/profile_data', { data: [{ id: fields.phone, value: '555-0100' }] });
  for (const [item, msg] of [
    [{ id: fields.site, value: 'not a url' }, 'Website is not a URL'],
    [{ id: fields.site, value: 'javascript:alert(1)' }, 'Website is not a URL'],
    [{ id: fields.birthday, value: '1600-02-30' }, 'Birthday is not a date'],
    [{ id: fields.team, value: 'sales' }, "'sales' is not a valid choice for 'Team'."],
    [{ id: fields.mentor, value: [424242] }, 'Invalid user ID: 424242'],
    [{ id: 999_999, value: 'x' }, 'Field id 999999 not found.'],
    [{ id: fields.phone, value: 'x'.repeat(51) }, 'Phone is too long (limit: 50 characters)'],
  ] as const) {
    const response = await cordelia.patch('/users/me/profile_data', { data: [{ id: fields.phone, value: 'changed' }, item] });
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg]);
  }
  const data = await profileOf(cordelia, await idOf(cordelia));
  assert.equal(data[String(fields.phone)], { value: '555-0100', rendered_value: '<p>555-0100</p>' }, 'the valid first item was not stored either');
});

profile('a field the organization restricts is refused to members, allowed to administrators', async ({ server, fields }) => {
  const prospero = await server.as('prospero@zulip.com');
  const refused = await prospero.patch('/users/me/profile_data', { data: [{ id: fields.badge, value: '7' }] });
  assert.equal([refused.status, refused.body.msg], [400, 'You are not allowed to change this field. Contact an administrator to update it.']);
  const iago = await server.as('iago@zulip.com');
  assert.is((await iago.patch('/users/me/profile_data', { data: [{ id: fields.badge, value: '1' }] })).status, 200);
});

profile('bots have no profile_data; users without values have an empty one', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await hamlet.post('/bots', { full_name: 'Profile bot', short_name: 'profilebot' });
  const response = await hamlet.get(`/users/${bot.body.user_id}`, { include_custom_profile_fields: true });
  assert.not.ok('profile_data' in (response.body.user as object));
  assert.equal(await profileOf(hamlet, await idOf(await server.as('polonius@zulip.com'))), {});
  const without = await hamlet.get(`/users/${await idOf(hamlet)}`);
  assert.not.ok('profile_data' in (without.body.user as object), 'only when requested');
});

profile('reordering needs every field exactly once', async ({ server, fields }) => {
  const iago = await server.as('iago@zulip.com');
  const reversed = Object.values(fields).reverse();
  assert.is((await iago.patch('/realm/profile_fields', { order: reversed.slice(1) })).body.msg, 'Invalid order mapping.');
  assert.is((await iago.patch('/realm/profile_fields', { order: reversed })).status, 200);
  const listed = (await iago.get('/realm/profile_fields')).body.custom_fields as { id: number }[];
  assert.equal(listed.map((field) => field.id), reversed);
  assert.is((await iago.patch('/realm/profile_fields', { order: Object.values(fields) })).status, 200);
});

profile('field and value changes are announced; register + events == a fresh register', async ({ server, fields }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const before = await register(polonius, { client_gravatar: false });
  await iago.patch(`/realm/profile_fields/${fields.phone}`, { hint: 'With country code' });
  await hamlet.patch('/users/me/profile_data', { data: [{ id: fields.phone, value: '+45 555' }, { id: fields.team, value: 'ops' }] });
  await hamlet.patch('/users/me/profile_data', { data: [{ id: fields.team, value: null }] });
  const events = (await polonius.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.type), ['custom_profile_fields', 'realm_user', 'realm_user', 'realm_user']);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(polonius, { client_gravatar: false })).state));
  assert.is((await iago.patch('/realm/profile_fields/999999', { hint: 'x' })).body.msg, 'Field id 999999 not found.');
});

profile('the profile endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/realm/profile_fields'],
    ['POST', '/realm/profile_fields'],
    ['PATCH', '/realm/profile_fields'],
    ['PATCH', '/realm/profile_fields/1'],
    ['PATCH', '/users/me/profile_data'],
  ]);
});

profile.run();
