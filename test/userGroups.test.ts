// User groups: creation, membership, subgroups (spec endpoint 19: unknown IDs and cycles refused,
// nothing changed), deactivation, nested membership in permissions, events and state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const groups = suite<{ server: TestServer }>('user groups');

groups.before(async (context) => {
  context.server = await startTestServer();
});
groups.after(async ({ server }) => server.stop());

let counter = 0;
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
async function newGroup(client: ApiClient, members: number[] = [], subgroups: number[] = []): Promise<number> {
  const response = await client.post('/user_groups/create', { name: `Group ${++counter}`, description: 'A group', members, subgroups });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /user_groups/create', response.body);
  return Number(response.body.group_id);
}
type Group = { id: number; name: string; members: number[]; direct_subgroup_ids: number[]; deactivated: boolean };
const groupOf = async (client: ApiClient, id: number): Promise<Group> =>
  ((await client.get('/user_groups', { include_deactivated_groups: true })).body.user_groups as Group[]).find((group) => group.id === id)!;

groups('members create groups; members and subgroups are listed, direct and nested', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const inner = await newGroup(hamlet, [await idOf(othello)]);
  const outer = await newGroup(hamlet, [await idOf(cordelia)], [inner]);
  const all = await hamlet.get(`/user_groups/${outer}/members`);
  assertMatchesReference('GET /user_groups/{user_group_id}/members', all.body);
  assert.equal((all.body.members as number[]).sort(), [await idOf(othello), await idOf(cordelia)].sort());
  assert.equal((await hamlet.get(`/user_groups/${outer}/members`, { direct_member_only: true })).body.members, [await idOf(cordelia)]);
  const membership = await hamlet.get(`/user_groups/${outer}/members/${await idOf(othello)}`);
  assertMatchesReference('GET /user_groups/{user_group_id}/members/{user_id}', membership.body);
  assert.is(membership.body.is_user_group_member, true, 'through the subgroup');
  assert.equal((await hamlet.get(`/user_groups/${outer}/subgroups`)).body.subgroups, [inner]);
  const polonius = await server.as('polonius@zulip.com');
  assert.is((await polonius.post('/user_groups/create', { name: 'Guests', description: '', members: [] })).status, 400);
  assert.is((await hamlet.post('/user_groups/create', { name: 'role:admins', description: '', members: [] })).status, 400);
  assert.match(String((await hamlet.post('/user_groups/create', { name: 'Bad', description: '', members: [424242] })).body.msg), /Invalid user ID: 424242/);
});

groups('endpoint 19: subgroups are added and removed; unknown IDs and cycles are refused and nothing changes', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const a = await newGroup(hamlet);
  const b = await newGroup(hamlet);
  const c = await newGroup(hamlet);
  const add = (group: number, params: Record<string, unknown>) => hamlet.post(`/user_groups/${group}/subgroups`, params);
  const ok = await add(a, { add: [b] });
  assertMatchesReference('POST /user_groups/{user_group_id}/subgroups', ok.body);
  assert.is((await add(b, { add: [c] })).status, 200);
  for (const [group, params, pattern] of [
    [c, { add: [a] }, /already a subgroup of one of the passed subgroups/],
    [a, { add: [a] }, /already a subgroup of one of the passed subgroups/],
    [a, { add: [999_999] }, /Invalid user group ID: 999999/],
    [a, { add: [b] }, /already a subgroup of this group/],
    [a, { delete: [c] }, /not a subgroup of this group/],
    [a, { add: [c], delete: [999_999] }, /Invalid user group ID/],
  ] as const) {
    const response = await add(group, params);
    assert.equal([response.status, response.body.code], [400, 'BAD_REQUEST'], JSON.stringify(params));
    assert.match(String(response.body.msg), pattern);
  }
  assert.equal((await groupOf(hamlet, a)).direct_subgroup_ids, [b], 'nothing changed');
  assert.equal((await groupOf(hamlet, c)).direct_subgroup_ids, []);
  assert.is((await add(a, { delete: [b] })).status, 200);
  assert.equal((await groupOf(hamlet, a)).direct_subgroup_ids, []);
  const systemGroup = ((await hamlet.get('/user_groups')).body.user_groups as Group[]).find((group) => group.name === 'role:members')!;
  assert.is((await add(systemGroup.id, { add: [a] })).status, 400, 'system groups follow roles, not edits');
});

groups('only the group\'s managers (or administrators) change it; deactivation, unless in use', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const group = await newGroup(hamlet);
  assert.is((await othello.patch(`/user_groups/${group}`, { name: 'Taken over' })).status, 400);
  assert.is((await iago.patch(`/user_groups/${group}`, { name: `Renamed ${counter}` })).status, 200);
  assert.is((await hamlet.post(`/user_groups/${group}/members`, { add: [await idOf(othello)] })).status, 200);
  assert.match(String((await hamlet.post(`/user_groups/${group}/members`, { add: [await idOf(othello)] })).body.msg), /already a member/);
  const used = await newGroup(hamlet);
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: `Guarded ${counter}` }], can_send_message_group: used });
  assert.is((await hamlet.post(`/user_groups/${used}/deactivate`)).body.msg, 'Cannot deactivate user group in use.');
  const deactivated = await hamlet.post(`/user_groups/${group}/deactivate`);
  assertMatchesReference('POST /user_groups/{user_group_id}/deactivate', deactivated.body);
  assert.is((await groupOf(hamlet, group)).deactivated, true);
  assert.is((await hamlet.get('/user_groups/999999/members')).body.msg, 'Invalid user group');
});

groups('a nested group grants a channel permission to its subgroups\' members', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const inner = await newGroup(iago, [await idOf(cordelia)]);
  const outer = await newGroup(iago, [], [inner]);
  const name = `Nested ${counter}`;
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], invite_only: true, can_add_subscribers_group: outer });
  assert.is((await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await idOf(cordelia)] })).status, 400, 'hamlet is in no group');
  assert.is((await cordelia.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [await idOf(hamlet)] })).status, 200, 'cordelia is, through the subgroup');
});

groups('every group change is announced; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const before = await register(prospero, { fetch_event_types: ['realm_user_groups'], event_types: ['realm_user_groups'] });
  const a = await newGroup(hamlet, [await idOf(prospero)]);
  const b = await newGroup(hamlet);
  await hamlet.patch(`/user_groups/${a}`, { description: 'Changed' });
  await hamlet.post(`/user_groups/${a}/subgroups`, { add: [b] });
  await hamlet.post(`/user_groups/${a}/members`, { delete: [await idOf(prospero)], add: [await idOf(hamlet)] });
  await hamlet.post(`/user_groups/${a}/subgroups`, { delete: [b] });
  await hamlet.post(`/user_groups/${b}/deactivate`);
  const events = (await prospero.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(prospero, { fetch_event_types: ['realm_user_groups'] })).state));
});

groups('the group endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/user_groups/create'],
    ['PATCH', '/user_groups/1'],
    ['POST', '/user_groups/1/members'],
    ['GET', '/user_groups/1/members'],
    ['GET', '/user_groups/1/members/1'],
    ['POST', '/user_groups/1/subgroups'],
    ['GET', '/user_groups/1/subgroups'],
    ['POST', '/user_groups/1/deactivate'],
  ]);
});

groups("the demo organization has Zulip's test group hamletcharacters, of Hamlet and Cordelia (Zulip's API examples use it)", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const listed = (await hamlet.get('/user_groups')).body.user_groups as { name: string; description: string; members: number[] }[];
  const group = listed.find((candidate) => candidate.name === 'hamletcharacters');
  assert.ok(group);
  const ids = await Promise.all(['hamlet@zulip.com', 'cordelia@zulip.com'].map(async (email) => Number((await (await server.as(email)).get('/users/me')).body.user_id)));
  assert.equal([...group!.members].sort(), ids.sort());
});

groups.run();
