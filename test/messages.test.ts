// Messages through the API: sending to channels and users, the rules that refuse a message,
// per-recipient flags, the message events and their client variants, and fetching windows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../src/http/json.js';
import { assertRequiresCredentials } from './helpers/assert.js';
import { rawRequest, type ApiClient } from './helpers/client.js';
import { register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { nestedArrays } from './helpers/nesting.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const messages = suite<{ server: TestServer }>('messages');

messages.before(async (context) => {
  context.server = await startTestServer();
});
messages.after(async ({ server }) => server.stop());

let counter = 0;
const fresh = (prefix: string): string => `${prefix} ${++counter}`;
const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
const eventsOf = async (client: ApiClient, queueId: string): Promise<Event[]> =>
  (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];

type Message = { id: number; subject: string; flags: string[]; content: string; type: string; [field: string]: unknown };

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /messages', response.body);
  return Number(response.body.id);
}

messages('a channel message reaches its subscribers with their flags; mentions are flagged', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const hamletQueue = await register(hamlet, { event_types: ['message'] });
  const cordeliaQueue = await register(cordelia, { event_types: ['message'] });
  const id = await send(othello, { type: 'stream', to: 'Verona', topic: fresh('news'), content: 'Hello @**King Hamlet**' });
  const [toHamlet] = await eventsOf(hamlet, hamletQueue.queueId);
  const [toCordelia] = await eventsOf(cordelia, cordeliaQueue.queueId);
  assert.is((toHamlet!.message as Message).id, id);
  assert.equal(toHamlet!.flags, ['mentioned']);
  assert.equal(toCordelia!.flags, []);
  assertEventMatchesReference(toHamlet!);
});

messages("the queue a message was sent from gets local_message_id on its event, and only that queue", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const sending = await register(hamlet, { event_types: ['message'] });
  const otherTab = await register(hamlet, { event_types: ['message'] });
  const recipient = await register(othello, { event_types: ['message'] });
  const id = await send(hamlet, { type: 'direct', to: JSON.stringify(['othello@zulip.com']), content: 'echo', queue_id: sending.queueId, local_id: '1234.01' });
  const [mine] = await eventsOf(hamlet, sending.queueId);
  assert.is((mine!.message as Message).id, id);
  assert.is(mine!.local_message_id, '1234.01');
  // The reference leaves the field out of the event's schema; Zulip's server sends it
  // (zerver/tornado/event_queue.py) and its clients read it.
  assertEventMatchesReference(mine!, { properties: { local_message_id: { type: 'string' } } });
  for (const [client, queueId] of [[hamlet, otherTab.queueId], [othello, recipient.queueId]] as const) {
    const [event] = await eventsOf(client, queueId);
    assert.is((event!.message as Message).id, id);
    assert.not.ok('local_message_id' in event!);
  }
  // Another user naming the sender's queue does not give it a local ID.
  const otherId = await send(othello, { type: 'direct', to: JSON.stringify(['hamlet@zulip.com']), content: 'not yours', queue_id: sending.queueId, local_id: '99.01' });
  const events = await eventsOf(hamlet, sending.queueId);
  const fromOthello = events.find((event) => (event.message as Message).id === otherId);
  assert.ok(fromOthello);
  assert.not.ok('local_message_id' in fromOthello);
});

messages('a mention by name finds the user by their current name, and no longer once they are deactivated', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const before = fresh('Mentioned');
  const after = fresh('Renamed');
  const created = await iago.post('/users', { email: `mentioned${counter}@zulip.com`, full_name: before, password: 'secret-pw' });
  const userId = Number(created.body.user_id);
  const rendered = async (content: string): Promise<string> => {
    const id = await send(othello, { type: 'stream', to: 'Verona', topic: 'mentions by name', content });
    return ((await othello.get(`/messages/${id}`)).body.message as Message).content;
  };
  const mention = `data-user-id="${userId}"`;
  assert.ok((await rendered(`@**${before}**`)).includes(mention));
  assert.is((await iago.patch(`/users/${userId}`, { full_name: after })).status, 200);
  assert.not.ok((await rendered(`@**${before}**`)).includes(mention));
  assert.ok((await rendered(`@**${after.toUpperCase()}**`)).includes(mention));
  assert.is((await iago.delete(`/users/${userId}`)).status, 200);
  assert.not.ok((await rendered(`@**${after}**`)).includes(mention));
});

messages('a channel can be named by ID; "channel" and "stream" are the same type', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const veronaId = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const id = await send(hamlet, { type: 'channel', to: veronaId, topic: 'by id', content: 'x' });
  const fetched = await hamlet.get(`/messages/${id}`);
  assertMatchesReference('GET /messages/{message_id}', fetched.body);
  assert.is((fetched.body.message as Message).display_recipient, 'Verona');
});

messages('a message to a channel that does not exist is STREAM_DOES_NOT_EXIST', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const byId = await hamlet.post('/messages', { type: 'stream', to: 987654, topic: 't', content: 'x' });
  assert.is(byId.status, 400);
  assert.equal(byId.body, { result: 'error', code: 'STREAM_DOES_NOT_EXIST', msg: "Channel with ID '987654' does not exist", stream_id: 987654 });
  const byName = await hamlet.post('/messages', { type: 'stream', to: 'Atlantis', topic: 't', content: 'x' });
  assert.is(byName.body.code, 'STREAM_DOES_NOT_EXIST');
});

messages('refused: a private channel one is not in, a guest outside its channels, empty or null-byte content', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  assert.is((await hamlet.post('/messages', { type: 'stream', to: 'core team', topic: 't', content: 'x' })).status, 400);
  assert.is((await polonius.post('/messages', { type: 'stream', to: 'Denmark', topic: 't', content: 'x' })).status, 400);
  assert.is((await polonius.post('/messages', { type: 'stream', to: 'Verona', topic: 't', content: 'a guest may post where it is subscribed' })).status, 200);
  assert.match(String((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 't', content: '  ' })).body.msg), /must not be empty/);
  assert.match(String((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 't', content: 'a\u0000b' })).body.msg), /null bytes/);
  assert.match(String((await hamlet.post('/messages', { type: 'stream', to: 'Verona', content: 'no topic' })).body.msg), /Missing topic/);
});

messages('"(no topic)" and the empty-topic display name are the empty topic; long content is truncated', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  for (const topic of ['(no topic)', 'general chat', '']) {
    const id = await send(hamlet, { type: 'stream', to: 'Verona', topic, content: 'general' });
    assert.is(((await hamlet.get(`/messages/${id}`, { allow_empty_topic_name: true })).body.message as Message).subject, '');
    // A client that does not take the empty topic reads its display name (Zulip's default).
    assert.is(((await hamlet.get(`/messages/${id}`)).body.message as Message).subject, 'general chat');
  }
  const long = await send(hamlet, { type: 'stream', to: 'Verona', topic: 't'.repeat(80), content: 'c'.repeat(10_050) });
  const message = (await hamlet.get(`/messages/${long}`, { apply_markdown: false })).body.message as Message;
  assert.is([...message.subject].length, 60);
  assert.is(message.content.length, 10_000);
  assert.match(message.content, /\[message truncated\]$/);
});

messages('GET /messages with message_ids: those the user may read, oldest first, filtered by the narrow; never with a window', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const first = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'by id', content: 'first' });
  const second = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'by id too', content: 'second' });
  const general = await send(hamlet, { type: 'stream', to: 'Verona', topic: '', content: 'general' });
  const secret = await send(othello, { type: 'direct', to: [await idOf(await server.as('cordelia@zulip.com'))], content: 'not for hamlet' });
  const fetched = await hamlet.get('/messages', { message_ids: JSON.stringify([general, second, secret, first, 999_999_999]) });
  assert.is(fetched.status, 200, JSON.stringify(fetched.body));
  assertMatchesReference('GET /messages', fetched.body);
  const listed = fetched.body.messages as Message[];
  assert.equal(listed.map((message) => message.id), [first, second, general]);
  assert.equal([fetched.body.found_anchor, fetched.body.found_oldest, fetched.body.found_newest, 'anchor' in fetched.body], [false, false, false, false]);
  // The empty topic by its display name unless the client takes the empty string.
  assert.is(listed[2]!.subject, 'general chat');
  const raw = await hamlet.get('/messages', { message_ids: JSON.stringify([general]), allow_empty_topic_name: true });
  assert.is((raw.body.messages as Message[])[0]!.subject, '');
  const narrowed = await hamlet.get('/messages', { message_ids: JSON.stringify([first, second]), narrow: JSON.stringify([{ operator: 'topic', operand: 'by id too' }]) });
  assert.equal((narrowed.body.messages as Message[]).map((message) => message.id), [second]);
  const mixed = await hamlet.get('/messages', { message_ids: JSON.stringify([first]), anchor: 'newest' });
  assert.equal([mixed.status, mixed.body.code, mixed.body.msg], [400, 'BAD_REQUEST', 'Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor']);
  assert.is((await hamlet.get('/messages', { message_ids: JSON.stringify([first]), num_before: 1 })).status, 400);
  assert.is((await hamlet.get('/messages', { message_ids: JSON.stringify(Array.from({ length: 5001 }, (_, index) => index + 1)) })).body.msg, 'Too many messages requested (maximum 5000).');
});

messages('direct messages reach exactly their participants; unknown recipients are refused', async ({ server }) => {
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const cordeliaQueue = await register(cordelia, { event_types: ['message'] });
  const prosperoQueue = await register(prospero, { event_types: ['message'] });
  const id = await send(othello, { type: 'direct', to: [await idOf(cordelia)], content: 'psst' });
  const [event] = await eventsOf(cordelia, cordeliaQueue.queueId);
  assert.is((event!.message as Message).id, id);
  assert.equal(await eventsOf(prospero, prosperoQueue.queueId), []);
  assert.is((await prospero.get(`/messages/${id}`)).status, 400, 'not a participant');
  assert.is((await othello.post('/messages', { type: 'private', to: 'nobody@zulip.com', content: 'x' })).status, 400);
  assert.is((await othello.post('/messages', { type: 'private', to: [424242], content: 'x' })).status, 400);
  const viaEmails = await send(othello, { type: 'private', to: 'cordelia@zulip.com', content: 'by e-mail' });
  assert.ok(viaEmails > id);
});

messages("the sender's own message starts read only when sent from a Zulip app or asked for", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const api = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'read', content: 'from a script' });
  const asked = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'read', content: 'asked', read_by_sender: true });
  const app = await rawRequest(server.baseUrl, {
    method: 'POST',
    path: '/api/v1/messages',
    headers: { ...hamlet.authHeader(), 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'ZulipMobile/27.1 (Android 14)' },
    body: 'type=stream&to=Verona&topic=read&content=from+the+app',
  });
  const flags = async (id: number) => ((await hamlet.get(`/messages/${id}`)).body.message as Message).flags;
  assert.equal(await flags(api), []);
  assert.equal(await flags(asked), ['read']);
  assert.equal(await flags(Number(app.body.id)), ['read']);
});

messages('queues get content as HTML or Markdown and avatars per apply_markdown and client_gravatar', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const html = await register(hamlet, { event_types: ['message'], apply_markdown: true, client_gravatar: false });
  const raw = await register(hamlet, { event_types: ['message'], apply_markdown: false, client_gravatar: true });
  await send(hamlet, { type: 'stream', to: 'Verona', topic: 'md', content: 'some **bold**' });
  const [htmlEvent] = await eventsOf(hamlet, html.queueId);
  const [rawEvent] = await eventsOf(hamlet, raw.queueId);
  assert.is((htmlEvent!.message as Message).content, '<p>some <strong>bold</strong></p>');
  assert.match(String((htmlEvent!.message as Message).avatar_url), /gravatar/);
  assert.is((rawEvent!.message as Message).content, 'some **bold**');
  assert.is((rawEvent!.message as Message).avatar_url, null);
});

messages('a queue registered with a narrow receives only matching messages', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const topic = fresh('narrowed');
  const queue = await register(hamlet, { event_types: ['message'], narrow: [['channel', 'Verona'], ['topic', topic]] });
  await send(othello, { type: 'stream', to: 'Verona', topic: 'elsewhere', content: 'no' });
  const wanted = await send(othello, { type: 'stream', to: 'Verona', topic, content: 'yes' });
  await send(othello, { type: 'private', to: [await idOf(hamlet)], content: 'no' });
  assert.equal((await eventsOf(hamlet, queue.queueId)).map((event) => (event.message as Message).id), [wanted]);
});

messages('GET /messages: anchors, before/after counts and the found_* answers', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const channel = fresh('Window');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: channel }] });
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await send(iago, { type: 'stream', to: channel, topic: i % 2 ? 'odd' : 'even', content: `m${i}`, read_by_sender: i < 2 }));
  const narrow = [{ operator: 'channel', operand: channel }];
  const fetch = async (params: Record<string, unknown>) => {
    const response = await iago.get('/messages', { narrow, ...params });
    assert.is(response.status, 200, JSON.stringify(response.body));
    assertMatchesReference('GET /messages', response.body);
    const body = response.body as { anchor: number; found_anchor: boolean; found_oldest: boolean; found_newest: boolean; messages: Message[] };
    return { ...body, ids: body.messages.map((message) => message.id) };
  };
  const newest = await fetch({ anchor: 'newest', num_before: 2, num_after: 0 });
  assert.equal(newest.ids, ids.slice(3));
  assert.equal([newest.found_newest, newest.found_oldest], [true, false]);
  // Zulip's LARGER_THAN_MAX_MESSAGE_ID: zulip-terminal compares the anchor with this exact value.
  assert.is(newest.anchor, 10_000_000_000_000_000);
  const asClientsAsk = await fetch({ anchor: 10_000_000_000_000_000, num_before: 2, num_after: 0 });
  assert.equal([asClientsAsk.ids, asClientsAsk.found_newest], [ids.slice(3), true]);
  const oldest = await fetch({ anchor: 'oldest', num_before: 0, num_after: 10 });
  assert.equal(oldest.ids, ids);
  assert.equal([oldest.found_oldest, oldest.found_newest], [true, true]);
  const middle = await fetch({ anchor: ids[2], num_before: 1, num_after: 1 });
  assert.equal(middle.ids, ids.slice(1, 4));
  assert.equal([middle.found_anchor, middle.found_oldest, middle.found_newest], [true, false, false]);
  const excluded = await fetch({ anchor: ids[2], num_before: 1, num_after: 1, include_anchor: false });
  assert.equal(excluded.ids, [ids[1], ids[3]]);
  // num_after counts messages after the anchor; the anchor itself comes on top.
  const firstUnread = await fetch({ anchor: 'first_unread', num_before: 0, num_after: 1 });
  assert.equal(firstUnread.ids, [ids[2], ids[3]]);
  assert.is(firstUnread.anchor, ids[2]);
  const nothingUnread = await fetch({ anchor: 'first_unread', num_before: 2, num_after: 0, narrow: [...narrow, { operator: 'topic', operand: 'nowhere' }] });
  assert.equal([nothingUnread.anchor, nothingUnread.ids, nothingUnread.found_newest], [10_000_000_000_000_000, [], true]);
  const odd = await fetch({ anchor: 'oldest', num_before: 0, num_after: 10, narrow: [...narrow, { operator: 'topic', operand: 'ODD' }] });
  assert.equal(odd.ids, [ids[1], ids[3]]);
  const unread = await fetch({ anchor: 'oldest', num_before: 0, num_after: 10, narrow: [...narrow, ['is', 'unread']] });
  assert.equal(unread.ids, ids.slice(2));
  const notEven = await fetch({ anchor: 'oldest', num_before: 0, num_after: 10, narrow: [...narrow, { operator: 'topic', operand: 'even', negated: true }] });
  assert.equal(notEven.ids, [ids[1], ids[3]]);
  const search = await fetch({ anchor: 'oldest', num_before: 0, num_after: 10, narrow: [...narrow, { operator: 'search', operand: 'M4' }] });
  assert.equal(search.ids, [ids[4]]);
});

messages('GET /messages refuses unknown operators, channels and oversized windows', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  for (const narrow of [[['color', 'red']], [['channel', 'Atlantis']], [['sender', 'ghost@zulip.com']], [['is', 'sleepy']]]) {
    const response = await hamlet.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow });
    assert.is(response.status, 400, JSON.stringify(narrow));
    assert.match(String(response.body.msg), /^Invalid narrow operator/);
  }
  assert.match(String((await hamlet.get('/messages', { anchor: 'newest', num_before: 4000, num_after: 1001 })).body.msg), /Too many messages requested/);
  assert.is((await hamlet.get('/messages', { anchor: 'sideways', num_before: 1, num_after: 0 })).status, 400);
  assert.is((await hamlet.get('/messages', { anchor: 'newest' })).body.code, 'REQUEST_VARIABLE_MISSING');
});

messages('a narrow operand of the wrong kind is a 400, however deeply nested (it was a 500); JSON nested deeper than Zulip parses is not valid JSON', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  // As deep as a client's JSON may go (1,024 with the narrow's own two levels).
  const deep = nestedArrays(MAX_JSON_DEPTH - 2);
  const requests = (narrow: string) => {
    const window = { anchor: 'newest', num_before: 1, num_after: 0, narrow };
    return Promise.all([hamlet.get('/messages', window), hamlet.post('/messages/flags/narrow', { ...window, op: 'add', flag: 'read' }), hamlet.post('/register', { narrow })]);
  };
  for (const narrow of [`[{"operator": "search", "operand": ${deep}}]`, `[{"operator": "id", "operand": ${deep}}]`, '[["topic", ["a", "b"]]]', '[{"operator": "dm", "operand": [{"id": 1}]}]']) {
    for (const response of await requests(narrow)) {
      assert.is(response.status, 400, `${narrow.slice(0, 60)}: ${JSON.stringify(response.body)}`);
      assert.match(String(response.body.msg), /^(operand|narrow\[0\]\[1\]) is not a string/);
    }
  }
  for (const response of await requests(`[{"operator": "search", "operand": ${nestedArrays(MAX_JSON_DEPTH - 1)}}]`)) {
    assert.is(response.status, 400);
    assert.is(response.body.msg, 'Argument "narrow" is not valid JSON.');
  }
});

messages("a public channel's history is readable without having received it (historical)", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const channel = fresh('Archive');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: channel }] });
  const id = await send(iago, { type: 'stream', to: channel, topic: 'old', content: 'before prospero' });
  const response = await prospero.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['channel', channel]] });
  const [message] = response.body.messages as Message[];
  assert.is(message!.id, id);
  assert.equal(message!.flags, ['read', 'historical']);
});

messages('the first message of a channel sets first_message_id and announces it', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const channel = fresh('Fresh');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: channel }] });
  const queue = await register(hamlet, { event_types: ['stream'] });
  const id = await send(iago, { type: 'stream', to: channel, topic: 't', content: 'first' });
  await send(iago, { type: 'stream', to: channel, topic: 't', content: 'second' });
  const events = await eventsOf(hamlet, queue.queueId);
  assert.equal(events.map((event) => [event.property, event.value]), [['first_message_id', id]]);
  assertEventMatchesReference(events[0]!);
});

messages('DELETE /messages/{id}: one\'s own recent message, or anything for those in the delete-any group', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const own = await send(hamlet, { type: 'stream', to: 'Verona', topic: fresh('delete'), content: 'oops' });
  const others = await send(othello, { type: 'stream', to: 'Verona', topic: fresh('delete'), content: 'not yours' });
  const watcher = await register(othello, { event_types: ['delete_message'] });
  const deleted = await hamlet.delete(`/messages/${own}`);
  assertMatchesReference('DELETE /messages/{message_id}', deleted.body);
  assert.is((await hamlet.get(`/messages/${own}`)).status, 400);
  assert.equal((await eventsOf(othello, watcher.queueId)).map((event) => event.message_ids), [[own]]);
  const refused = await hamlet.delete(`/messages/${others}`);
  assert.equal([refused.status, refused.body.msg], [400, "You don't have permission to delete this message"]);
  assert.is((await iago.delete(`/messages/${others}`)).status, 200, 'administrators are in the default delete-any group');
  assert.is((await hamlet.delete('/messages/987654321')).body.msg, 'Invalid message(s)');
  const secret = await send(iago, { type: 'stream', to: 'core team', topic: 't', content: 'x' });
  assert.is((await hamlet.delete(`/messages/${secret}`)).body.msg, 'Invalid message(s)');
});

messages('GET /users/me/{stream_id}/topics: each topic once with its newest message, newest first', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const name = fresh('Topical');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }] });
  const id = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
  const first = await send(iago, { type: 'stream', to: name, topic: 'alpha', content: '1' });
  const second = await send(iago, { type: 'stream', to: name, topic: '', content: '2' });
  const third = await send(iago, { type: 'stream', to: name, topic: 'ALPHA', content: '3' });
  const response = await iago.get(`/users/me/${id}/topics`);
  assertMatchesReference('GET /users/me/{stream_id}/topics', response.body);
  assert.equal(response.body.topics, [
    { name: 'ALPHA', max_id: third },
    { name: 'general chat', max_id: second },
  ]);
  assert.equal(((await iago.get(`/users/me/${id}/topics`, { allow_empty_topic_name: true })).body.topics as { name: string }[])[1]!.name, '');
  assert.ok(first < third);
  const hamlet = await server.as('hamlet@zulip.com');
  const coreTeam = Number((await iago.get('/get_stream_id', { stream: 'core team' })).body.stream_id);
  assert.is((await hamlet.get(`/users/me/${coreTeam}/topics`)).body.msg, 'Invalid channel ID');
});

messages('every message endpoint requires valid credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/messages'],
    ['GET', '/messages'],
    ['GET', '/messages/1'],
    ['DELETE', '/messages/1'],
    ['GET', '/users/me/1/topics'],
  ]);
});

messages.run();
