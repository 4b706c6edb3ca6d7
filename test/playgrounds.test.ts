// Code playgrounds: administrators only, Zulip's rules for languages and URL templates (RFC 6570,
// `code` the only variable, checked by the linkifiers' template parser), `realm_playgrounds` events
// to everyone, and the default code block language reset when its playground goes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';

const playgrounds = suite<{ server: TestServer }>('code playgrounds');

playgrounds.before(async (context) => {
  context.server = await startTestServer();
});
playgrounds.after(async ({ server }) => server.stop());

type Playground = { id: number; name: string; pygments_language: string; url_template: string };
const python = { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com?code={code}' };

playgrounds('administrators add and remove playgrounds; everyone sees them in register and events', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const queue = await register(hamlet, { fetch_event_types: ['realm_playgrounds'], event_types: ['realm_playgrounds'] });
  const added = await iago.post('/realm/playgrounds', { name: ' Rust ', pygments_language: ' Rust ', url_template: ' https://play.rust.example/{?code} ' });
  assertMatchesReference('POST /realm/playgrounds', added.body);
  const kept = await iago.post('/realm/playgrounds', python);
  const removed = await iago.delete(`/realm/playgrounds/${added.body.id}`);
  assertMatchesReference('DELETE /realm/playgrounds/{playground_id}', removed.body);
  const events = (await hamlet.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.is(events.length, 3);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal((events[0]!.realm_playgrounds as Playground[]).map((playground) => [playground.name, playground.pygments_language, playground.url_template]), [['Rust', 'Rust', 'https://play.rust.example/{?code}']], 'trimmed');
  for (const event of events) applyEvent(queue.state, event);
  const fresh = (await register(hamlet, { fetch_event_types: ['realm_playgrounds'] })).state;
  for (const playground of fresh.realm_playgrounds as Playground[]) assertMatchesComponent('RealmPlayground', playground);
  assert.equal((fresh.realm_playgrounds as Playground[]).map((playground) => playground.id), [kept.body.id]);
  assert.equal(comparable(queue.state), comparable(fresh));
  await iago.delete(`/realm/playgrounds/${kept.body.id}`);
});

playgrounds('only administrators may change playgrounds', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const id = (await iago.post('/realm/playgrounds', python)).body.id as number;
  for (const response of [await hamlet.post('/realm/playgrounds', { ...python, name: 'other' }), await hamlet.delete(`/realm/playgrounds/${id}`)]) {
    assert.equal([response.status, response.body.code], [400, 'UNAUTHORIZED_PRINCIPAL']);
  }
  await iago.delete(`/realm/playgrounds/${id}`);
  const missing = await iago.delete(`/realm/playgrounds/${id}`);
  assert.equal([missing.status, missing.body.code, missing.body.msg], [400, 'BAD_REQUEST', 'Invalid playground']);
});

playgrounds('languages and URL templates are checked as Zulip does; one playground of a name per language', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const id = (await iago.post('/realm/playgrounds', python)).body.id as number;
  for (const [fields, msg] of [
    [{ pygments_language: 'P'.repeat(41) }, 'pygments_language is too long (limit: 40 characters)'],
    [{ pygments_language: 'py<script>' }, 'Invalid characters in pygments language'],
    [{ url_template: 'https://x.example/{code' }, 'Invalid URL template.'],
    [{ url_template: 'https://x.example/{co de}' }, 'Invalid URL template.'],
    [{ url_template: '  ' }, 'This field cannot be blank.'],
    [{ name: ' ' }, 'This field cannot be blank.'],
    [{ pygments_language: '' }, 'This field cannot be blank.'],
    [{ url_template: 'https://x.example/run' }, 'Missing the required variable "code" in the URL template'],
    [{ url_template: 'https://x.example/{lang}/{code}' }, '"code" should be the only variable present in the URL template'],
    [{}, 'Realm playground with this Realm, Pygments language and Name already exists.'],
  ] as const) {
    const response = await iago.post('/realm/playgrounds', { ...python, ...fields });
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(fields));
  }
  assert.is((await iago.post('/realm/playgrounds', { ...python, pygments_language: 'c++' })).status, 200, 'the same name for another language');
  await iago.delete(`/realm/playgrounds/${id}`);
});

playgrounds('removing the default code block language\'s playground resets the setting', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const id = (await iago.post('/realm/playgrounds', { ...python, pygments_language: 'Haskell' })).body.id as number;
  assert.is((await iago.patch('/realm', { default_code_block_language: 'Haskell' })).status, 200);
  const queue = await register(iago, { fetch_event_types: ['realm'], event_types: ['realm'] });
  await iago.delete(`/realm/playgrounds/${id}`);
  const events = (await iago.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => [event.type, event.op, event.property, event.value]), [['realm', 'update', 'default_code_block_language', '']]);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(queue.state, event);
  const fresh = (await register(iago, { fetch_event_types: ['realm'] })).state;
  assert.is(fresh.realm_default_code_block_language, '');
  assert.equal(comparable(queue.state), comparable(fresh));
});

playgrounds('playgrounds are kept across a restart', async () => {
  const config = testConfig();
  const first = await startTestServer(config);
  const id = (await (await first.as('iago@zulip.com')).post('/realm/playgrounds', python)).body.id as number;
  await first.parley.close();
  const second = await startTestServer(config);
  try {
    const state = (await register(await second.as('hamlet@zulip.com'), { fetch_event_types: ['realm_playgrounds'] })).state;
    assert.equal(state.realm_playgrounds, [{ id, ...python }]);
  } finally {
    await second.stop();
  }
});

playgrounds('the playground endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/realm/playgrounds'],
    ['DELETE', '/realm/playgrounds/1'],
  ]);
});

playgrounds.run();
