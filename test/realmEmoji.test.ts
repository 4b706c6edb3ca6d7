// Custom emoji: members upload them (an image, its name checked as Zulip checks it), everyone sees
// the realm's table and its images, statuses and reactions use them, their author or an
// administrator deactivates them, and every change reaches everyone.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { download, ONE_PIXEL_PNG as png, upload } from './helpers/files.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, waitFor, type TestServer } from './helpers/server.js';

const emoji = suite<{ server: TestServer }>('custom emoji');

emoji.before(async (context) => {
  context.server = await startTestServer();
});
emoji.after(async ({ server }) => server.stop());

const image = (name = 'parrot.png') => [{ name, type: 'image/png', bytes: png }];

type Listed = Record<string, { id: string; name: string; source_url: string; deactivated: boolean; author_id: number }>;

emoji('a member uploads one; everyone lists it and fetches its image; statuses and reactions use it', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const uploaded = await upload(hamlet, image(), '/realm/emoji/party_parrot');
  assertMatchesReference('POST /realm/emoji/{emoji_name}', uploaded.body);
  const listed = await othello.get('/realm/emoji');
  assertMatchesReference('GET /realm/emoji', listed.body);
  const parrot = Object.values(listed.body.emoji as Listed).find((entry) => entry.name === 'party_parrot')!;
  assert.equal([parrot.deactivated, parrot.author_id], [false, Number((await hamlet.get('/users/me')).body.user_id)]);
  const fetched = await download(server.anonymous, parrot.source_url);
  assert.equal([fetched.status, fetched.type, fetched.bytes.equals(png)], [200, 'image/png', true], 'images are public, as Zulip serves them');
  assert.is((await othello.post('/users/me/status', { emoji_name: 'party_parrot', emoji_code: parrot.id, reaction_type: 'realm_emoji' })).status, 200);
  const message = Number((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'parrots', content: 'look' })).body.id);
  assert.is((await othello.post(`/messages/${message}/reactions`, { emoji_name: 'party_parrot' })).status, 200);
  const reactions = ((await othello.get(`/messages/${message}`)).body.message as { reactions: { emoji_code: string; reaction_type: string }[] }).reactions;
  assert.equal(reactions.map((reaction) => [reaction.emoji_code, reaction.reaction_type]), [[parrot.id, 'realm_emoji']]);
});

emoji("names are checked, one active emoji a name; guests may not add; only the author or an administrator deactivates", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const iago = await server.as('iago@zulip.com');
  assert.is((await upload(hamlet, image(), '/realm/emoji/wave_hello')).status, 200);
  for (const [client, path, parts, message] of [
    [hamlet, '/realm/emoji/wave_hello', image(), 'A custom emoji with this name already exists.'],
    [hamlet, '/realm/emoji/Bad%20Name', image(), 'Invalid characters in emoji name'],
    [hamlet, '/realm/emoji/trailing_', image(), 'Invalid characters in emoji name'],
    [hamlet, '/realm/emoji/not_an_image', [{ name: 'notes.txt', type: 'text/plain', bytes: 'hello' }], 'Invalid image format'],
    [await server.as('polonius@zulip.com'), '/realm/emoji/guest_emoji', image(), 'Insufficient permission'],
  ] as const) {
    const refused = await upload(client, [...parts], path);
    assert.equal([refused.status, refused.body.msg], [400, message], path);
  }
  const names = async () => Object.values((await hamlet.get('/realm/emoji')).body.emoji as Listed).filter((entry) => !entry.deactivated).map((entry) => entry.name);
  assert.not.ok((await names()).includes('not_an_image'), 'a refused upload leaves nothing');
  const notAuthor = await cordelia.delete('/realm/emoji/wave_hello');
  assert.equal([notAuthor.status, notAuthor.body.msg], [400, 'Must be an organization administrator or emoji author']);
  const unknown = await iago.delete('/realm/emoji/no_such_emoji');
  assertMatchesComponent('CodedError', unknown.body);
  assert.equal(unknown.body.msg, "Emoji 'no_such_emoji' does not exist");
  const deactivated = await iago.delete('/realm/emoji/wave_hello');
  assertMatchesReference('DELETE /realm/emoji/{emoji_name}', deactivated.body);
  assert.not.ok((await names()).includes('wave_hello'));
  assert.is((await upload(hamlet, image(), '/realm/emoji/wave_hello')).status, 200, 'a deactivated name may be used again');
});

emoji('every change is announced to everyone; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const before = await register(cordelia, { fetch_event_types: ['realm_emoji'], event_types: ['realm_emoji'] });
  await upload(hamlet, image(), '/realm/emoji/thinking_hard');
  await hamlet.delete('/realm/emoji/thinking_hard');
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.map((event) => [event.type, event.op]), [['realm_emoji', 'update'], ['realm_emoji', 'update']]);
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { fetch_event_types: ['realm_emoji'] })).state));
});

emoji("an image's type comes from its bytes: sent without a part type (as Zulip's Python client sends it) or under a wrong one", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  for (const [name, type] of [['untyped', ''], ['mistyped', 'image/gif']] as const) {
    const added = await upload(hamlet, [{ name: `${name}.png`, type, bytes: png }], `/realm/emoji/${name}`);
    assert.is(added.status, 200, JSON.stringify(added.body));
  }
  const emoji = Object.values((await hamlet.get('/realm/emoji')).body.emoji as Record<string, { name: string; source_url: string }>);
  for (const name of ['untyped', 'mistyped']) {
    const url = emoji.find((candidate) => candidate.name === name)!.source_url;
    const served = await download(hamlet, url);
    assert.equal([served.status, served.type], [200, 'image/png'], name);
  }
});

emoji('a refused upload stores nothing: two images in one request', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const stored = () => readdirSync(join(server.config.dataDir, 'uploads'), { recursive: true }).length;
  const before = stored();
  const refused = await upload(hamlet, [...image('one.png'), ...image('two.png')], '/realm/emoji/twice');
  assert.is(refused.status, 400);
  // The second part's refusal may come while the first is stored: that file is removed once stored.
  await waitFor(() => stored() === before);
});

emoji('the custom emoji endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/realm/emoji'],
    ['POST', '/realm/emoji/x'],
    ['DELETE', '/realm/emoji/x'],
  ]);
});

emoji.run();
