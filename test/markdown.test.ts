// Message rendering: Markdown with Zulip's mention, group-mention and channel-link syntax, and the
// flags each mention gives its recipients; raw HTML never passes through.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const markdown = suite<{ server: TestServer }>('message rendering');

markdown.before(async (context) => {
  context.server = await startTestServer();
});
markdown.after(async ({ server }) => server.stop());

async function sendAndRead(sender: ApiClient, reader: ApiClient, content: string): Promise<{ id: number; content: string; flags: string[] }> {
  const sent = await sender.post('/messages', { type: 'stream', to: 'Verona', topic: 'render', content });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  return (await reader.get(`/messages/${sent.body.id}`)).body.message as { id: number; content: string; flags: string[] };
}
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

markdown('user mentions render as spans and flag the mentioned user; silent ones and code do not', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const hamletId = await idOf(hamlet);
  const loud = await sendAndRead(othello, hamlet, 'Hi @**king hamlet**');
  assert.is(loud.content, `<p>Hi <span class="user-mention" data-user-id="${hamletId}">@King Hamlet</span></p>`);
  assert.equal(loud.flags, ['mentioned']);
  const byId = await sendAndRead(othello, hamlet, `@**King Hamlet|${hamletId}**`);
  assert.equal(byId.flags, ['mentioned']);
  const silent = await sendAndRead(othello, hamlet, 'cc @_**King Hamlet**');
  assert.is(silent.content, `<p>cc <span class="user-mention silent" data-user-id="${hamletId}">King Hamlet</span></p>`);
  assert.equal(silent.flags, []);
  const code = await sendAndRead(othello, hamlet, 'literally `@**King Hamlet**`\n\n```\n@**King Hamlet**\n```');
  assert.equal(code.flags, []);
  assert.not.match(code.content, /user-mention/);
  const unknown = await sendAndRead(othello, hamlet, '@**Nobody At All**');
  assert.equal([unknown.content, unknown.flags], ['<p>@<strong>Nobody At All</strong></p>', []]);
});

markdown('wildcards: @**all** and @**topic** set their flags (and the deprecated wildcard_mentioned)', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const all = await sendAndRead(othello, hamlet, '@**all** listen');
  assert.equal(all.flags.sort(), ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  assert.match(all.content, /<span class="user-mention" data-user-id="\*">@all<\/span>/);
  const topic = await sendAndRead(othello, hamlet, '@**topic** listen');
  assert.equal(topic.flags.sort(), ['topic_wildcard_mentioned', 'wildcard_mentioned']);
});

markdown('group mentions reach the members of the group and of its subgroups', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const inner = Number((await iago.post('/user_groups/create', { name: 'Inner circle', description: '', members: [await idOf(hamlet)] })).body.group_id);
  const outer = Number((await iago.post('/user_groups/create', { name: 'Court', description: '', members: [], subgroups: [inner] })).body.group_id);
  const message = await sendAndRead(iago, hamlet, 'Attention @*court*');
  assert.is(message.content, `<p>Attention <span class="user-group-mention" data-user-group-id="${outer}">@Court</span></p>`);
  assert.equal(message.flags, ['mentioned']);
  assert.equal(((await cordelia.get(`/messages/${message.id}`)).body.message as { flags: string[] }).flags, [], 'not in the group');
});

markdown('global times render as <time> in UTC; invalid ones stay text', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const valid = await sendAndRead(othello, hamlet, 'at <time:2026-11-22T12:30:00+02:00>');
  assert.is(valid.content, '<p>at <time datetime="2026-11-22T10:30:00Z">2026-11-22T12:30:00+02:00</time></p>');
  const invalid = await sendAndRead(othello, hamlet, 'at <time:someday>');
  assert.not.match(invalid.content, /<time/);
});

markdown('channel and topic links; raw HTML is escaped', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const link = await sendAndRead(hamlet, hamlet, 'See #**Verona** and #**Verona>greetings**');
  assert.is(
    link.content,
    `<p>See <a class="stream" data-stream-id="${verona}" href="/#narrow/channel/${verona}-Verona">#Verona</a> and ` +
      `<a class="stream-topic" data-stream-id="${verona}" href="/#narrow/channel/${verona}-Verona/topic/greetings">#Verona &gt; greetings</a></p>`,
  );
  // A link to one message, the empty topic by its display name, and a topic holding `>`, `@` and a
  // space (hash-encoded as Zulip's hash_util_encode: no dashes for spaces in topics).
  const message = await sendAndRead(hamlet, hamlet, '#**Verona>plans@42** #**Verona>** #**Verona>a > b @ c.d**');
  assert.is(
    message.content,
    `<p><a class="message-link" href="/#narrow/channel/${verona}-Verona/topic/plans/near/42">#Verona &gt; plans @ 💬</a> ` +
      `<a class="stream-topic" data-stream-id="${verona}" href="/#narrow/channel/${verona}-Verona/topic/">#Verona &gt; <em>general chat</em></a> ` +
      `<a class="stream-topic" data-stream-id="${verona}" href="/#narrow/channel/${verona}-Verona/topic/a.20.3E.20b.20.40.20c.2Ed">#Verona &gt; a &gt; b @ c.d</a></p>`,
  );
  const unsafe = await sendAndRead(hamlet, hamlet, '<script>alert(1)</script> **bold**');
  assert.is(unsafe.content, '<p>&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong></p>');
});

markdown('alert words: managed per user, flag has_alert_word on matching messages, recomputed on edit', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const queue = await register(prospero, { fetch_event_types: ['alert_words'], event_types: ['alert_words'] });
  const added = await prospero.post('/users/me/alert_words', { alert_words: ['Tempest', 'magic', 'tempest'] });
  assertMatchesReference('POST /users/me/alert_words', added.body);
  assert.equal(added.body.alert_words, ['Tempest', 'magic']);
  const verona = 'Verona';
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: verona }], principals: [await idOf(prospero)] });
  const hit = await sendAndRead(iago, prospero, 'What a TEMPEST tonight');
  assert.ok(hit.flags.includes('has_alert_word'));
  const partial = await sendAndRead(iago, prospero, 'tempestuous weather');
  assert.not.ok(partial.flags.includes('has_alert_word'), 'whole words only');
  await iago.patch(`/messages/${hit.id}`, { content: 'What a storm tonight' });
  assert.not.ok(((await prospero.get(`/messages/${hit.id}`)).body.message as { flags: string[] }).flags.includes('has_alert_word'), 'recomputed on edit');
  const removed = await prospero.delete('/users/me/alert_words', { alert_words: ['TEMPEST'] });
  assertMatchesReference('DELETE /users/me/alert_words', removed.body);
  assert.equal(removed.body.alert_words, ['magic']);
  assertMatchesReference('GET /users/me/alert_words', (await prospero.get('/users/me/alert_words')).body);
  const events = (await prospero.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  for (const event of events) assertEventMatchesReference(event);
  for (const event of events) applyEvent(queue.state, event);
  assert.equal(comparable(queue.state), comparable((await register(prospero, { fetch_event_types: ['alert_words'] })).state));
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/users/me/alert_words'],
    ['POST', '/users/me/alert_words'],
    ['DELETE', '/users/me/alert_words'],
  ]);
});

markdown('a quoted mention is silent and flags no one', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const quoted = await sendAndRead(othello, hamlet, '> @**King Hamlet** said so\n\n```quote\n@**King Hamlet**\n```');
  assert.equal(quoted.flags, []);
  assert.not.match(quoted.content, /class="user-mention"/);
  assert.match(quoted.content, /class="user-mention silent"/);
});

markdown('inline image previews point at /thumbnail, which sends an authenticated client to the image', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const image = 'https://example.com/picture.png';
  const message = await sendAndRead(hamlet, hamlet, `look ${image}`);
  assert.match(message.content, '<img data-src-fullsize="/thumbnail?url=https%3A%2F%2Fexample.com%2Fpicture.png&amp;size=full"');
  const thumbnail = (url: string, auth = hamlet.authHeader()) =>
    fetch(`${server.baseUrl}/thumbnail?${new URLSearchParams({ url, size: 'thumbnail' })}`, { headers: auth, redirect: 'manual' });
  const redirected = await thumbnail(image);
  assert.equal([redirected.status, redirected.headers.get('location')], [302, image]);
  assert.is((await thumbnail('javascript:alert(1)')).status, 400);
  assert.is((await thumbnail(image, {})).status, 401);
});

markdown.run();
