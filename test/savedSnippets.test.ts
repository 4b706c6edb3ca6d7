// Saved snippets: created, listed, edited and removed as Zulip does (trimmed, never empty, titles of
// at most 60 characters), only the owner's, and the events that keep the user's clients in step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';

const snippets = suite<{ server: TestServer }>('saved snippets');

snippets.before(async (context) => {
  context.server = await startTestServer();
});
snippets.after(async ({ server }) => server.stop());

type Snippet = { id: number; title: string; content: string; date_created: number };
const list = async (client: ApiClient): Promise<Snippet[]> => {
  const response = await client.get('/saved_snippets');
  assertMatchesReference('GET /saved_snippets', response.body);
  return response.body.saved_snippets as Snippet[];
};

snippets('a snippet is created trimmed with its creation time, and listed in creation order', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const before = Math.floor(Date.now() / 1000);
  const first = await hamlet.post('/saved_snippets', { title: '  Welcome ', content: '\n**Welcome** to the organization.  ' });
  assertMatchesReference('POST /saved_snippets', first.body);
  const second = await hamlet.post('/saved_snippets', { title: 'Bye', content: 'See you' });
  const stored = await list(hamlet);
  for (const snippet of stored) assertMatchesComponent('SavedSnippet', snippet);
  assert.equal(stored.map((snippet) => [snippet.id, snippet.title, snippet.content]), [
    [first.body.saved_snippet_id, 'Welcome', '**Welcome** to the organization.'],
    [second.body.saved_snippet_id, 'Bye', 'See you'],
  ]);
  assert.ok(stored[0]!.date_created >= before, 'the server\'s time of creation');
});

snippets('empty or too long titles and contents are refused, on creation and on edit', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const id = (await cordelia.post('/saved_snippets', { title: 'kept', content: 'kept' })).body.saved_snippet_id as number;
  for (const [fields, msg] of [
    [{ title: '   ', content: 'x' }, 'Title cannot be empty.'],
    [{ title: 'x', content: ' \n ' }, 'Content cannot be empty.'],
    [{ title: 't'.repeat(61), content: 'x' }, 'title is too long (limit: 60 characters)'],
    [{ title: 'x', content: 'c'.repeat(10_001) }, 'content is too long (limit: 10000 characters)'],
  ] as const) {
    for (const response of [await cordelia.post('/saved_snippets', fields), await cordelia.patch(`/saved_snippets/${id}`, fields)]) {
      assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(fields));
      assertMatchesReference('POST /saved_snippets', response.body, {}, 400);
    }
  }
  assert.is((await cordelia.post('/saved_snippets', { title: 'no content' })).status, 400);
  assert.equal((await list(cordelia)).map((snippet) => [snippet.title, snippet.content]), [['kept', 'kept']], 'nothing created or changed');
  const longest = await cordelia.post('/saved_snippets', { title: 't'.repeat(60), content: 'c'.repeat(10_000) });
  assert.is(longest.status, 200, 'at the limits');
});

snippets('PATCH changes what it is given, DELETE removes; unknown or another user\'s snippets do not exist', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const id = (await othello.post('/saved_snippets', { title: 'v1', content: 'body 1' })).body.saved_snippet_id as number;
  const edited = await othello.patch(`/saved_snippets/${id}`, { title: 'v2' });
  assertMatchesReference('PATCH /saved_snippets/{saved_snippet_id}', edited.body);
  await othello.patch(`/saved_snippets/${id}`, { content: 'body 2' });
  assert.equal((await list(othello)).map((snippet) => [snippet.title, snippet.content]), [['v2', 'body 2']]);
  for (const [method, path] of [['PATCH', `/saved_snippets/${id}`], ['DELETE', `/saved_snippets/${id}`], ['PATCH', '/saved_snippets/999999'], ['DELETE', '/saved_snippets/999999']] as const) {
    const response = await hamlet.call(method, path, { title: 'x' });
    assert.equal([response.status, response.body.code, response.body.msg], [404, 'BAD_REQUEST', 'Saved snippet does not exist.'], `${method} ${path}`);
    assertMatchesReference(`${method} /saved_snippets/{saved_snippet_id}`, response.body, {}, 404);
  }
  const removed = await othello.delete(`/saved_snippets/${id}`);
  assertMatchesReference('DELETE /saved_snippets/{saved_snippet_id}', removed.body);
  assert.equal(await list(othello), []);
});

snippets('every change is announced to the user\'s clients only; register + events == a fresh register', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const mine = await register(prospero, { fetch_event_types: ['saved_snippets'], event_types: ['saved_snippets'] });
  const other = await register(polonius, { event_types: ['saved_snippets'] });
  const a = (await prospero.post('/saved_snippets', { title: 'a', content: 'a' })).body.saved_snippet_id as number;
  const b = (await prospero.post('/saved_snippets', { title: 'b', content: 'b' })).body.saved_snippet_id as number;
  await prospero.patch(`/saved_snippets/${a}`, { content: 'a2' });
  await prospero.patch(`/saved_snippets/${a}`, {});
  await prospero.delete(`/saved_snippets/${b}`);
  const events = (await prospero.get('/events', { queue_id: mine.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.op), ['add', 'add', 'update', 'remove'], 'an edit that changes nothing sends nothing');
  for (const event of events) assertEventMatchesReference(event);
  assert.equal((await polonius.get('/events', { queue_id: other.queueId, last_event_id: -1, dont_block: true })).body.events, []);
  for (const event of events) applyEvent(mine.state, event);
  const fresh = (await register(prospero, { fetch_event_types: ['saved_snippets'] })).state;
  assert.equal((fresh.saved_snippets as Snippet[]).map((snippet) => snippet.content), ['a2']);
  assert.equal(comparable(mine.state), comparable(fresh));
});

snippets('saved snippets are kept across a restart', async () => {
  const config = testConfig();
  const first = await startTestServer(config);
  const id = (await (await first.as('hamlet@zulip.com')).post('/saved_snippets', { title: 'kept', content: 'on disk' })).body.saved_snippet_id as number;
  await first.parley.close();
  const second = await startTestServer(config);
  try {
    assert.equal((await list(await second.as('hamlet@zulip.com'))).map((snippet) => [snippet.id, snippet.title, snippet.content]), [[id, 'kept', 'on disk']]);
  } finally {
    await second.stop();
  }
});

snippets('the saved snippet endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/saved_snippets'],
    ['POST', '/saved_snippets'],
    ['PATCH', '/saved_snippets/1'],
    ['DELETE', '/saved_snippets/1'],
  ]);
});

snippets.run();
