// Rows a user holds without a subscription: flagging a public channel's message enters it into the
// user's history (Zulip's "historical" rows). Deleting or moving the message must find those rows
// as it finds subscribers', and flags by message ID must never take a row left where the message
// no longer is.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const historical = suite<{ server: TestServer }>('rows from a channel’s history');
historical.before(async (context) => {
  context.server = await startTestServer();
});
historical.after(async ({ server }) => server.stop());

let channels = 0;

/** A public channel only iago is in, with one message of his; hamlet (never subscribed) stars it. */
async function starredFromHistory(server: TestServer, options: { inviteOnly?: boolean } = {}) {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const name = `History ${++channels}`;
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: ['iago@zulip.com'], ...(options.inviteOnly ? { invite_only: true } : {}) });
  const id = Number((await iago.post('/messages', { type: 'stream', to: name, topic: 't', content: 'from history' })).body.id);
  assert.equal((await hamlet.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' })).body.messages, [id]);
  return { iago, hamlet, name, id };
}

const flagsOf = async (client: ApiClient, id: number) => ((await client.get(`/messages/${id}`)).body.message as { flags: string[] }).flags;

historical('a deleted message leaves no row: windows skip it, flagging it is refused (also after subscribing)', async ({ server }) => {
  const { iago, hamlet, name, id } = await starredFromHistory(server);
  assert.is((await iago.delete(`/messages/${id}`)).status, 200);
  const window = await hamlet.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: '[]' });
  assert.is(window.status, 200, JSON.stringify(window.body));
  assert.not.ok((window.body.messages as { id: number }[]).some((message) => message.id === id));
  const starred = await hamlet.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([['is', 'starred']]) });
  assert.not.ok((starred.body.messages as { id: number }[]).some((message) => message.id === id));
  const unstar = await hamlet.post('/messages/flags', { messages: [id], op: 'remove', flag: 'starred' });
  assert.equal([unstar.status, unstar.body.msg], [400, 'Invalid message(s)']);
  await hamlet.post('/users/me/subscriptions', { subscriptions: [{ name }] });
  const unread = await hamlet.post('/messages/flags', { messages: [id], op: 'remove', flag: 'read' });
  assert.equal([unread.status, unread.body.msg], [400, 'Invalid message(s)']);
});

historical('a message moved to another public channel keeps the flags set from history; deleting it there leaves no row', async ({ server }) => {
  const { iago, hamlet, id } = await starredFromHistory(server);
  const to = `History ${++channels}`;
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: to }], principals: ['iago@zulip.com'] });
  const toId = Number((await iago.get('/get_stream_id', { stream: to })).body.stream_id);
  assert.is((await iago.patch(`/messages/${id}`, { stream_id: toId })).status, 200);
  assert.equal((await flagsOf(hamlet, id)).sort(), ['historical', 'read', 'starred']);
  assert.equal((await hamlet.post('/messages/flags', { messages: [id], op: 'add', flag: 'collapsed' })).body.messages, [id]);
  assert.ok((await flagsOf(hamlet, id)).includes('collapsed'));
  assert.is((await iago.delete(`/messages/${id}`)).status, 200);
  const window = await hamlet.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: '[]' });
  assert.is(window.status, 200, JSON.stringify(window.body));
  assert.not.ok((window.body.messages as { id: number }[]).some((message) => message.id === id));
});

historical('a message moved to a private channel the user cannot read is refused and gone from their windows', async ({ server }) => {
  const { iago, hamlet, id } = await starredFromHistory(server);
  const secret = `History ${++channels}`;
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: secret }], principals: ['iago@zulip.com'], invite_only: true });
  const secretId = Number((await iago.get('/get_stream_id', { stream: secret })).body.stream_id);
  assert.is((await iago.patch(`/messages/${id}`, { stream_id: secretId })).status, 200);
  assert.is((await hamlet.get(`/messages/${id}`)).status, 400);
  const read = await hamlet.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' });
  assert.equal([read.status, read.body.msg], [400, 'Invalid message(s)']);
  const starred = await hamlet.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([['is', 'starred']]) });
  assert.not.ok((starred.body.messages as { id: number }[]).some((message) => message.id === id));
});

historical.run();
