// Message objects as fetches show them: a realm keeps each message's view as JSON once encoded
// (state.messageJson), so these tests fetch a message first, then change it or what its view shows
// (a reaction, an edit, a move, a widget's submessage, the sender's name), and check that the next
// fetch of every kind and variant shows the change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const views = suite<{ server: TestServer }>('message views kept as JSON');

views.before(async (context) => {
  context.server = await startTestServer();
});
views.after(async ({ server }) => server.stop());

type Fetched = { id: number; content: string; content_type: string; subject: string; sender_full_name: string; reactions: { emoji_name: string }[]; submessages: unknown[]; flags: string[]; last_edit_timestamp?: number };

/** The message as each kind of fetch shows it, in both content variants: a window, by ID among
 * others, and a search (its highlights joined to the kept view). */
async function fetchedEverywhere(client: ApiClient, id: number): Promise<Fetched[]> {
  const shown: Fetched[] = [];
  for (const apply_markdown of [true, false]) {
    const window = await client.get('/messages', { anchor: id, num_before: 2, num_after: 2, narrow: [{ operator: 'channel', operand: 'Verona' }], apply_markdown });
    assert.is(window.status, 200, JSON.stringify(window.body));
    assertMatchesReference('GET /messages', window.body);
    const byIds = await client.get('/messages', { message_ids: [id - 1, id], apply_markdown });
    const search = await client.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'search', operand: 'views' }], apply_markdown });
    assert.ok((search.body.messages as Fetched[] & { match_subject?: string }[]).every((message) => 'match_subject' in message), 'a search highlights its matches');
    for (const body of [window.body, byIds.body, search.body]) {
      const message = (body.messages as Fetched[]).find((candidate) => candidate.id === id);
      assert.ok(message, `message ${id} fetched`);
      assert.is(message.content_type, apply_markdown ? 'text/html' : 'text/x-markdown', 'each variant its own view');
      shown.push(message);
    }
  }
  return shown;
}

views('a fetched message shows every change made to it since it was last fetched', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'kept views', content: '/poll Lunch?\nSoup\nSalad' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = Number(sent.body.id);
  const hamletId = Number((await hamlet.get('/users/me')).body.user_id);
  const seen = (messages: Fetched[], check: (message: Fetched) => boolean, what: string) => messages.forEach((message, index) => assert.ok(check(message), `${what} (fetch ${index}): ${JSON.stringify(message)}`));

  const before = await fetchedEverywhere(othello, id);
  seen(before, (message) => message.reactions.length === 0 && message.sender_full_name === 'King Hamlet', 'as sent');

  assert.is((await othello.post(`/messages/${id}/reactions`, { emoji_name: 'octopus' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.reactions.some((reaction) => reaction.emoji_name === 'octopus'), 'the reaction added');

  const widgets = (await fetchedEverywhere(othello, id))[0]!.submessages.length;
  assert.is((await othello.post('/submessage', { message_id: id, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 }) })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.submessages.length === widgets + 1, 'the vote added');

  assert.is((await hamlet.patch(`/messages/${id}`, { content: 'An edited poll, now plain' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.content.includes('An edited poll, now plain') && message.last_edit_timestamp !== undefined, 'the edit');

  const topic = 'moved views';
  assert.is((await hamlet.patch(`/messages/${id}`, { topic, propagate_mode: 'change_one' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.subject === topic, 'the move');

  assert.is((await iago.patch(`/users/${hamletId}`, { full_name: 'Prince Hamlet' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.sender_full_name === 'Prince Hamlet', 'the sender renamed');

  assert.is((await othello.delete(`/messages/${id}/reactions`, { emoji_name: 'octopus' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.reactions.length === 0, 'the reaction removed');

  // Flags are each viewer's own, never part of the kept view.
  assert.is((await othello.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' })).status, 200);
  seen(await fetchedEverywhere(othello, id), (message) => message.flags.includes('starred'), 'starred for othello');
  seen(await fetchedEverywhere(iago, id), (message) => !message.flags.includes('starred'), 'not starred for iago');
});

views.run();
