// Avatars: a user uploads a picture (served publicly, its URL in the User object and register, a
// realm_user update to everyone), replaces it (the old picture goes), returns to Gravatar; the
// organization may disable avatar changes for everyone but administrators.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, pollEvents, register } from './helpers/events.js';
import { download, ONE_PIXEL_PNG as png, upload } from './helpers/files.js';
import { assertEventMatchesReference, assertMatchesReference, specUserFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const avatars = suite<{ server: TestServer }>('avatars');

avatars.before(async (context) => {
  context.server = await startTestServer();
});
avatars.after(async ({ server }) => server.stop());

// The smallest GIF: one pixel.
const gif = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');

avatars('an uploaded avatar is everyone\'s to see, replaced and removed; register + events == a fresh register', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const before = await register(othello, { fetch_event_types: ['realm_user'], client_gravatar: true });
  const own = await register(hamlet, { fetch_event_types: ['realm_user'], client_gravatar: false });

  const uploaded = await upload(hamlet, [{ name: 'me.png', type: 'image/png', bytes: png }], '/users/me/avatar');
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  const url = String(uploaded.body.avatar_url);
  assert.match(url, /^\/user_avatars\/\d+\/avatars\/\d+-[0-9a-f]+\.png\?version=2$/);
  const me = await hamlet.get('/users/me');
  assertMatchesReference('GET /users/me', me.body, specUserFields);
  assert.is(me.body.avatar_url, url);
  const served = await download(server.anonymous, url);
  assert.equal([served.status, served.type, served.bytes.equals(png)], [200, 'image/png', true], 'avatars are public, as in Zulip');

  const [event] = await pollEvents(othello, before.queueId, 1);
  assertEventMatchesReference(event!);
  assert.equal(event!.person, { user_id: me.body.user_id, avatar_source: 'U', avatar_url: url, avatar_url_medium: url, avatar_version: 2 });

  // A new picture replaces the old one, whose file goes.
  const replaced = await upload(hamlet, [{ name: 'me.gif', type: 'image/gif', bytes: gif }], '/users/me/avatar');
  const newUrl = String(replaced.body.avatar_url);
  assert.match(newUrl, /\.gif\?version=3$/);
  assert.not.ok(existsSync(join(server.config.dataDir, 'uploads', url.slice('/user_avatars/'.length).split('?')[0]!)));
  assert.is((await download(server.anonymous, url)).status, 404);

  // Back to Gravatar.
  const removed = await hamlet.delete('/users/me/avatar');
  assert.equal([removed.status, String(removed.body.avatar_url).startsWith('https://secure.gravatar.com/avatar/')], [200, true]);
  assert.is((await download(server.anonymous, newUrl)).status, 404);

  // Othello's state (client_gravatar: a Gravatar avatar is null) and Hamlet's own (always a URL).
  for (const [client, state, queueId, options] of [
    [othello, before.state, before.queueId, { client_gravatar: true }],
    [hamlet, own.state, own.queueId, { client_gravatar: false }],
  ] as const) {
    for (const received of await pollEvents(client, queueId, 3)) applyEvent(state, received, { clientGravatar: options.client_gravatar === true });
    const fresh = await register(client, { fetch_event_types: ['realm_user'], ...options });
    assert.equal(comparable(state), comparable(fresh.state));
  }
});

avatars('only images within the limit; avatar changes may be disabled for all but administrators', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const refused = async (parts: Parameters<typeof upload>[1], msg: string) => {
    const answer = await upload(cordelia, parts, '/users/me/avatar');
    assert.equal([answer.status, answer.body.msg], [400, msg]);
  };
  await refused([{ name: 'notes.txt', type: 'text/plain', bytes: 'not a picture' }], 'Invalid image format');
  // The bytes decide, not the name or the declared type.
  await refused([{ name: 'fake.png', type: 'image/png', bytes: 'not a picture either' }], 'Invalid image format');
  await refused([{ name: 'huge.png', type: 'image/png', bytes: Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024 + 1 - png.length)]) }], "File is larger than this server's configured maximum upload size (5 MiB).");
  await refused([], 'You must specify a file to upload');
  assert.is((await cordelia.get('/users/me')).body.avatar_version, 1, 'nothing changed');

  assert.is((await iago.patch('/realm', { avatar_changes_disabled: true })).status, 200);
  await refused([{ name: 'me.png', type: 'image/png', bytes: png }], 'Avatar changes are disabled in this organization.');
  assert.is((await cordelia.delete('/users/me/avatar')).body.msg, 'Avatar changes are disabled in this organization.');
  assert.is((await upload(iago, [{ name: 'me.png', type: 'image/png', bytes: png }], '/users/me/avatar')).status, 200, 'administrators still may');
  assert.is((await iago.patch('/realm', { avatar_changes_disabled: false })).status, 200);

  await assertRequiresCredentials(server.anonymous, [['POST', '/users/me/avatar'], ['DELETE', '/users/me/avatar']]);
});

avatars.run();
