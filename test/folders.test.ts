// Channel folders (spec endpoint 5 and the rest): administrators only, names and limits,
// archiving, ordering, channels placed in folders, events and state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const folders = suite<{ server: TestServer }>('channel folders');

folders.before(async (context) => {
  context.server = await startTestServer();
});
folders.after(async ({ server }) => server.stop());

type Folder = { id: number; name: string; description: string; rendered_description: string; is_archived: boolean; order: number };

folders('administrators create folders; members may not; names are checked', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const created = await iago.post('/channel_folders/create', { name: 'Frontend', description: 'The **web** app' });
  assert.is(created.status, 200);
  assertMatchesReference('POST /channel_folders/create', created.body);
  assert.is((await hamlet.post('/channel_folders/create', { name: 'Mine' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  for (const [name, pattern] of [
    ['   ', /can't be empty/],
    ['x'.repeat(61), /too long \(limit: 60/],
    ['frontend', /already in use/],
  ] as const) {
    const response = await iago.post('/channel_folders/create', { name });
    assert.equal([response.status, response.body.code], [400, 'BAD_REQUEST']);
    assert.match(String(response.body.msg), pattern);
  }
  assert.match(String((await iago.post('/channel_folders/create', { name: 'Long', description: 'd'.repeat(1025) })).body.msg), /too long \(limit: 1024/);
  const listed = await hamlet.get('/channel_folders');
  assertMatchesReference('GET /channel_folders', listed.body);
  const frontend = (listed.body.channel_folders as Folder[]).find((folder) => folder.name === 'Frontend')!;
  assert.is(frontend.rendered_description, '<p>The <strong>web</strong> app</p>');
});

folders('PATCH /channel_folders/{id}: only passed fields change; archive and unarchive; unknown IDs are BAD_REQUEST', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const id = Number((await iago.post('/channel_folders/create', { name: 'Backend', description: 'APIs' })).body.channel_folder_id);
  const renamed = await iago.patch(`/channel_folders/${id}`, { name: 'Server' });
  assertMatchesReference('PATCH /channel_folders/{channel_folder_id}', renamed.body);
  const list = async (params = {}) => (await iago.get('/channel_folders', params)).body.channel_folders as Folder[];
  assert.equal(((await list()).find((folder) => folder.id === id))!.description, 'APIs');
  assert.is((await iago.patch(`/channel_folders/${id}`, { is_archived: true })).status, 200);
  assert.not.ok((await list()).some((folder) => folder.id === id), 'archived folders are left out by default');
  assert.ok((await list({ include_archived: true })).find((folder) => folder.id === id)!.is_archived);
  assert.is((await iago.patch(`/channel_folders/${id}`, { is_archived: false })).status, 200);
  assert.equal([(await iago.patch('/channel_folders/999999', { name: 'x' })).body.msg], ['Invalid channel folder ID']);
  assert.is((await iago.patch(`/channel_folders/${id}`, { name: '' })).status, 400);
  assert.is((await hamlet.patch(`/channel_folders/${id}`, { name: 'Hijacked' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
});

folders('channels go into folders (not archived ones) and out with null', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const id = Number((await iago.post('/channel_folders/create', { name: 'Cities' })).body.channel_folder_id);
  const verona = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.is((await iago.patch(`/streams/${verona}`, { folder_id: id })).status, 200);
  assert.is(((await iago.get(`/streams/${verona}`)).body.stream as { folder_id: number }).folder_id, id);
  assert.is((await iago.patch(`/streams/${verona}`, { folder_id: null })).status, 200);
  assert.is(((await iago.get(`/streams/${verona}`)).body.stream as { folder_id: number | null }).folder_id, null);
  await iago.patch(`/channel_folders/${id}`, { is_archived: true });
  assert.is((await iago.patch(`/streams/${verona}`, { folder_id: id })).body.msg, 'Invalid channel folder ID');
});

folders('reordering needs every folder once; events; register + events == a fresh register', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const before = await register(cordelia, { fetch_event_types: ['channel_folders'], event_types: ['channel_folders'] });
  const first = Number((await iago.post('/channel_folders/create', { name: 'Alpha' })).body.channel_folder_id);
  await iago.patch(`/channel_folders/${first}`, { description: 'First *letter*', name: 'Alef' });
  const all = ((await iago.get('/channel_folders', { include_archived: true })).body.channel_folders as Folder[]).map((folder) => folder.id);
  assert.is((await iago.patch('/channel_folders', { order: all.slice(1) })).body.msg, 'Invalid order mapping.');
  const reordered = await iago.patch('/channel_folders', { order: [...all].reverse() });
  assertMatchesReference('PATCH /channel_folders', reordered.body);
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => event.op), ['add', 'update', 'reorder']);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { fetch_event_types: ['channel_folders'] })).state));
});

folders('the folder endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/channel_folders'],
    ['POST', '/channel_folders/create'],
    ['PATCH', '/channel_folders'],
    ['PATCH', '/channel_folders/1'],
  ]);
});

folders.run();
