// Drafts (spec endpoint 11 and the rest): the Draft table's rules, all or nothing, the events
// that keep a user's other clients in step, and only the owner's drafts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const drafts = suite<{ server: TestServer }>('drafts');

drafts.before(async (context) => {
  context.server = await startTestServer();
});
drafts.after(async ({ server }) => server.stop());

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
type Draft = { id: number; type: string; to: number[]; topic: string; content: string; timestamp: number };
const list = async (client: ApiClient): Promise<Draft[]> => {
  const response = await client.get('/drafts');
  assertMatchesReference('GET /drafts', response.body);
  assert.is(response.body.count, (response.body.drafts as Draft[]).length);
  return response.body.drafts as Draft[];
};

drafts('channel, direct and unaddressed drafts are created; the server fills in the timestamp', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const othello = await idOf(await server.as('othello@zulip.com'));
  const before = Math.floor(Date.now() / 1000);
  const created = await hamlet.post('/drafts', {
    drafts: [
      { type: 'stream', to: [verona], topic: 'plans', content: 'to be', timestamp: 1_700_000_000 },
      { type: 'private', to: [othello], topic: 'ignored', content: 'or not' },
      { type: '', to: [verona, othello], topic: 'ignored', content: 'unaddressed' },
    ],
  });
  assertMatchesReference('POST /drafts', created.body);
  const ids = created.body.ids as number[];
  assert.is(ids.length, 3);
  const stored = (await list(hamlet)).filter((draft) => ids.includes(draft.id));
  for (const draft of stored) assertMatchesComponent('Draft', draft);
  assert.equal(stored.map((draft) => [draft.type, draft.to, draft.topic]), [['stream', [verona], 'plans'], ['private', [othello], ''], ['', [], '']]);
  assert.is(stored[0]!.timestamp, 1_700_000_000);
  assert.ok(stored[1]!.timestamp >= before, 'filled in by the server');
});

drafts('the Draft table\'s rules; one bad draft and none of the request is created', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const verona = Number((await cordelia.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const coreTeam = Number((await (await server.as('iago@zulip.com')).get('/get_stream_id', { stream: 'core team' })).body.stream_id);
  const good = { type: 'stream', to: [verona], topic: 'fine', content: 'fine' };
  for (const [bad, msg] of [
    [{ ...good, to: [] }, 'Must specify exactly 1 channel ID for channel messages'],
    [{ ...good, to: [verona, verona] }, 'Must specify exactly 1 channel ID for channel messages'],
    [{ ...good, to: [987654] }, 'Invalid channel ID'],
    [{ ...good, to: [coreTeam] }, 'Invalid channel ID'],
    [{ type: 'private', to: [424242], topic: '', content: 'x' }, 'Invalid user ID 424242'],
    [{ ...good, content: 'a\u0000b' }, 'Content must not contain null bytes'],
    [{ ...good, topic: 'a\u0000b' }, 'Topic must not contain null bytes'],
  ] as const) {
    const response = await cordelia.post('/drafts', { drafts: [good, bad] });
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(bad));
  }
  assert.is((await cordelia.post('/drafts', { drafts: [{ ...good, type: 'letter' }] })).status, 400);
  assert.equal(await list(cordelia), [], 'nothing was created');
});

drafts('PATCH replaces a draft, DELETE removes it; unknown or another user\'s drafts do not exist', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const [id] = (await othello.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'v1' }] })).body.ids as number[];
  const edited = await othello.patch(`/drafts/${id}`, { draft: { type: '', to: [], topic: '', content: 'v2', timestamp: 1_750_000_000 } });
  assertMatchesReference('PATCH /drafts/{draft_id}', edited.body);
  assert.equal((await list(othello)).map((draft) => [draft.content, draft.timestamp]), [['v2', 1_750_000_000]]);
  for (const [method, path] of [['PATCH', `/drafts/${id}`], ['DELETE', `/drafts/${id}`], ['DELETE', '/drafts/999999']] as const) {
    const response = await hamlet.call(method, path, { draft: { type: '', to: [], topic: '', content: 'x' } });
    assert.equal([response.status, response.body.msg], [404, 'Draft does not exist'], `${method} ${path}`);
  }
  const removed = await othello.delete(`/drafts/${id}`);
  assertMatchesReference('DELETE /drafts/{draft_id}', removed.body);
  assert.equal(await list(othello), []);
});

drafts('every change is announced to the user\'s clients only; register + events == a fresh register', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const mine = await register(prospero, { fetch_event_types: ['drafts'], event_types: ['drafts'] });
  const other = await register(polonius, { event_types: ['drafts'] });
  const [a, b] = (await prospero.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'a' }, { type: '', to: [], topic: '', content: 'b' }] })).body.ids as number[];
  await prospero.patch(`/drafts/${a}`, { draft: { type: '', to: [], topic: '', content: 'a2', timestamp: 1_760_000_000 } });
  await prospero.delete(`/drafts/${b}`);
  const events = (await prospero.get('/events', { queue_id: mine.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.op), ['add', 'update', 'remove']);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal((await polonius.get('/events', { queue_id: other.queueId, last_event_id: -1, dont_block: true })).body.events, []);
  for (const event of events) applyEvent(mine.state, event);
  assert.equal(comparable(mine.state), comparable((await register(prospero, { fetch_event_types: ['drafts'] })).state));
});

drafts('the draft endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/drafts'],
    ['POST', '/drafts'],
    ['PATCH', '/drafts/1'],
    ['DELETE', '/drafts/1'],
  ]);
});

drafts.run();
