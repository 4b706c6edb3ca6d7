// Navigation views: built-in views configured and custom views named, known by their fragment
// (slashes and all, in the path as clients send it), only the owner's, and the events that keep
// the user's clients in step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';

const views = suite<{ server: TestServer }>('navigation views');

views.before(async (context) => {
  context.server = await startTestServer();
});
views.after(async ({ server }) => server.stop());

type View = { fragment: string; is_pinned: boolean; name: string | null };
const list = async (client: ApiClient): Promise<View[]> => {
  const response = await client.get('/navigation_views');
  assertMatchesReference('GET /navigation_views', response.body);
  for (const view of response.body.navigation_views as View[]) assertMatchesComponent('NavigationView', view);
  return response.body.navigation_views as View[];
};

views('built-in views are configured without a name, custom views need one; both are changed and removed by fragment', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const added = await hamlet.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: false });
  assertMatchesReference('POST /navigation_views', added.body);
  await hamlet.post('/navigation_views', { fragment: ' narrow/channel/3-design/topic/a#b ', is_pinned: true, name: ' Design ' });
  assert.equal(await list(hamlet), [
    { fragment: 'narrow/is/starred', is_pinned: false, name: null },
    { fragment: 'narrow/channel/3-design/topic/a#b', is_pinned: true, name: 'Design' },
  ]);
  const pinned = await hamlet.patch('/navigation_views/narrow/is/starred', { is_pinned: true });
  assertMatchesReference('PATCH /navigation_views/{fragment}', pinned.body);
  await hamlet.patch(`/navigation_views/${encodeURIComponent('narrow/channel/3-design/topic/a#b')}`, { name: 'Design work', is_pinned: false });
  assert.equal(await list(hamlet), [
    { fragment: 'narrow/is/starred', is_pinned: true, name: null },
    { fragment: 'narrow/channel/3-design/topic/a#b', is_pinned: false, name: 'Design work' },
  ]);
  const removed = await hamlet.delete('/navigation_views/narrow%2Fis%2Fstarred');
  assertMatchesReference('DELETE /navigation_views/{fragment}', removed.body);
  await hamlet.delete(`/navigation_views/${encodeURIComponent('narrow/channel/3-design/topic/a#b')}`);
  assert.equal(await list(hamlet), []);
});

views('Zulip\'s rules: names, blanks and duplicates; unknown or another user\'s views do not exist', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const othello = await server.as('othello@zulip.com');
  await cordelia.post('/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' });
  await cordelia.post('/navigation_views', { fragment: 'inbox', is_pinned: false });
  for (const [fields, msg] of [
    [{ fragment: '  ', is_pinned: true, name: 'x' }, 'fragment cannot be blank'],
    [{ fragment: 'narrow/is/unread', is_pinned: true, name: ' ' }, 'name cannot be blank'],
    [{ fragment: 'recent', is_pinned: true, name: 'Recent' }, 'Built-in views cannot have a custom name.'],
    [{ fragment: 'narrow/is/unread', is_pinned: true }, 'Custom views must have a valid name.'],
    [{ fragment: 'narrow/is/alerted', is_pinned: false, name: 'Other' }, 'Navigation view already exists.'],
    [{ fragment: 'inbox', is_pinned: true }, 'Navigation view already exists.'],
    [{ fragment: 'narrow/is/unread', is_pinned: true, name: 'Alerts' }, 'Navigation view already exists.'],
  ] as const) {
    const response = await cordelia.post('/navigation_views', fields);
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(fields));
    assertMatchesReference('POST /navigation_views', response.body, {}, 400);
  }
  for (const [path, fields, msg] of [
    ['/navigation_views/inbox', { name: 'Mine' }, 'Built-in views cannot have a custom name.'],
    ['/navigation_views/narrow/is/alerted', { name: 'Alerts' }, 'Navigation view already exists.'],
  ] as const) {
    const response = await cordelia.patch(path, fields);
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], path);
    assertMatchesReference('PATCH /navigation_views/{fragment}', response.body, {}, 400);
  }
  assert.is((await cordelia.post('/navigation_views', { fragment: 'feed' })).status, 400, 'is_pinned is required');
  for (const [method, path] of [['PATCH', '/navigation_views/narrow/is/alerted'], ['DELETE', '/navigation_views/narrow/is/alerted'], ['DELETE', '/navigation_views/nowhere']] as const) {
    const response = await othello.call(method, path, { is_pinned: false });
    assert.equal([response.status, response.body.code, response.body.msg], [404, 'BAD_REQUEST', 'Navigation view does not exist.'], `${method} ${path}`);
    assertMatchesReference(`${method} /navigation_views/{fragment}`, response.body, {}, 404);
  }
  assert.equal((await list(cordelia)).map((view) => view.fragment), ['narrow/is/alerted', 'inbox'], 'nothing created or changed');
});

views('every change is announced to the user\'s clients only; register + events == a fresh register', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const mine = await register(prospero, { fetch_event_types: ['navigation_views'], event_types: ['navigation_view'] });
  const other = await register(polonius, { event_types: ['navigation_view'] });
  await prospero.post('/navigation_views', { fragment: 'recent', is_pinned: false });
  await prospero.post('/navigation_views', { fragment: 'narrow/is/followed', is_pinned: true, name: 'Followed' });
  await prospero.patch('/navigation_views/narrow/is/followed', { name: 'Following', is_pinned: false });
  await prospero.patch('/navigation_views/recent', { is_pinned: true });
  await prospero.delete('/navigation_views/recent');
  const events = (await prospero.get('/events', { queue_id: mine.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.op), ['add', 'add', 'update', 'update', 'remove']);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal((await polonius.get('/events', { queue_id: other.queueId, last_event_id: -1, dont_block: true })).body.events, []);
  for (const event of events) applyEvent(mine.state, event);
  const fresh = (await register(prospero, { fetch_event_types: ['navigation_views'] })).state;
  assert.equal(fresh.navigation_views, [{ fragment: 'narrow/is/followed', is_pinned: false, name: 'Following' }]);
  assert.equal(comparable(mine.state), comparable(fresh));
});

views('navigation views are kept across a restart', async () => {
  const config = testConfig();
  const first = await startTestServer(config);
  await (await first.as('hamlet@zulip.com')).post('/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' });
  await first.parley.close();
  const second = await startTestServer(config);
  try {
    assert.equal(await list(await second.as('hamlet@zulip.com')), [{ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }]);
  } finally {
    await second.stop();
  }
});

views('the navigation view endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/navigation_views'],
    ['POST', '/navigation_views'],
    ['PATCH', '/navigation_views/inbox'],
    ['DELETE', '/navigation_views/narrow/is/starred'],
  ]);
});

views.run();
