// Message objects as fetches show them: a realm keeps each message's view as JSON once encoded
// (state.messageJson), so these tests fetch a message first, then change it or what its view shows
// (a reaction, an edit, a move, a widget's submessage, names, a channel, e-mail visibility, a
// deletion), and check that the next fetch of every kind and variant shows the change, with the
// realms on the serving thread and on a thread of their own. The kept views' budget is checked on
// its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KeptJsonLedger } from '../src/organization/keptJson.js';
import { MessageViews } from '../src/organization/messageViews.js';
import type { ApiClient } from './helpers/client.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const views = suite('message views kept as JSON');

type Fetched = { id: number; content: string; content_type: string; subject: string; sender_full_name: string; sender_email: string; display_recipient: unknown; reactions: { emoji_name: string }[]; submessages: unknown[]; flags: string[]; last_edit_timestamp?: number };

/** The message as each kind of fetch shows it, in both content variants: a window of the user's
 * messages, by ID among others, and a search (its highlights joined to the kept view). */
async function fetchedEverywhere(client: ApiClient, id: number): Promise<Fetched[]> {
  const shown: Fetched[] = [];
  for (const apply_markdown of [true, false]) {
    const window = await client.get('/messages', { anchor: id, num_before: 2, num_after: 2, apply_markdown });
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

/** Asserts `check` of each message fetched. */
const seen = (messages: Fetched[], check: (message: Fetched) => boolean, what: string) => messages.forEach((message, index) => assert.ok(check(message), `${what} (fetch ${index}): ${JSON.stringify(message)}`));

async function changesToTheMessage(server: TestServer): Promise<void> {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'kept views', content: '/poll Lunch?\nSoup\nSalad' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = Number(sent.body.id);
  const hamletId = Number((await hamlet.get('/users/me')).body.user_id);

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
}

/** Changes to what a view shows besides its message (after a review's test). */
async function changesAroundTheMessage(server: TestServer): Promise<void> {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const othelloId = Number((await othello.get('/users/me')).body.user_id);
  const send = async (params: Record<string, unknown>) => Number((await hamlet.post('/messages', params)).body.id);
  const first = await send({ type: 'stream', to: 'Verona', topic: 'around views', content: 'views around' });
  const second = await send({ type: 'stream', to: 'Verona', topic: 'around views', content: 'views around again' });
  const direct = await send({ type: 'private', to: JSON.stringify([othelloId]), content: 'views in private' });
  for (const id of [first, second, direct]) await fetchedEverywhere(othello, id);
  const verona = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.is((await iago.patch(`/streams/${verona}`, { new_name: 'Verona Renamed' })).status, 200);
  seen(await fetchedEverywhere(othello, first), (message) => message.display_recipient === 'Verona Renamed', 'the channel renamed');
  assert.is((await hamlet.patch('/settings', { email_address_visibility: 1 })).status, 200);
  seen(await fetchedEverywhere(othello, first), (message) => message.sender_email === 'hamlet@zulip.com', 'the e-mail shown');
  assert.is((await hamlet.patch('/settings', { email_address_visibility: 5 })).status, 200);
  seen(await fetchedEverywhere(othello, first), (message) => message.sender_email !== 'hamlet@zulip.com', 'the e-mail hidden');
  assert.is((await iago.patch(`/users/${othelloId}`, { full_name: 'Othello Renamed' })).status, 200);
  seen(await fetchedEverywhere(hamlet, direct), (message) => JSON.stringify(message.display_recipient).includes('Othello Renamed'), 'a participant renamed');
  assert.is((await hamlet.patch(`/messages/${second}`, { topic: 'moved around', propagate_mode: 'change_all' })).status, 200);
  seen([...(await fetchedEverywhere(othello, first)), ...(await fetchedEverywhere(othello, second))], (message) => message.subject === 'moved around', 'the topic moved, every message');
  const denmark = Number((await iago.get('/get_stream_id', { stream: 'Denmark' })).body.stream_id);
  assert.is((await iago.patch(`/messages/${first}`, { stream_id: denmark, propagate_mode: 'change_all' })).status, 200);
  seen([...(await fetchedEverywhere(iago, first)), ...(await fetchedEverywhere(iago, second))], (message) => message.display_recipient === 'Denmark', 'the channel moved');
  assert.is((await hamlet.delete(`/messages/${direct}`)).status, 200);
  assert.equal((await hamlet.get('/messages', { message_ids: [direct] })).body.messages, [], 'a deleted message is gone');
}

for (const threads of [1, 2]) {
  views(`a fetched message shows every change made to it since it was last fetched (PARLEY_THREADS=${threads})`, async () => {
    const server = await startTestServer({ threads });
    try {
      await changesToTheMessage(server);
      await changesAroundTheMessage(server);
    } finally {
      await server.stop();
    }
  });
}

views('the views kept stay within a budget of characters, the oldest going first unless used since', () => {
  const state = { version: 1 };
  const made: number[] = [];
  const ledger = new KeptJsonLedger(Number.POSITIVE_INFINITY);
  const holder = { dropKeptJson: () => kept.clear() };
  const kept = new MessageViews(state, ledger.open(holder), 1000, 300);
  const view = (id: number, variant = 0, length = 100) => kept.get(id, variant, () => (made.push(id), `"${String(id).padEnd(length - 2, '.')}"`));
  for (let id = 1; id <= 10; id++) view(id);
  assert.is(kept.size, 1000, 'ten views of 100 characters fill the budget');
  view(1);
  assert.is(made.length, 10, 'a kept view is not made again');
  view(11);
  assert.ok(kept.size <= 1000, `${kept.size} characters kept`);
  assert.is(ledger.characters, kept.size, 'the process counts what the realm keeps');
  view(2);
  assert.is(made.at(-1), 2, 'the oldest unused view went first (1, older, was used since)');
  made.length = 0;
  view(1);
  assert.equal(made, [], 'the view used recently stayed');
  view(1, 4);
  assert.equal(made, [1], 'each variant is a view of its own');
  view(12, 0, 400);
  view(12, 0, 400);
  assert.equal(made, [1, 12, 12], 'a view longer than the longest kept is made each time');
  kept.forget(1);
  view(1);
  assert.is(made.at(-1), 1, 'a message saved again is made again');
  state.version = 2;
  made.length = 0;
  view(3);
  assert.equal(made, [3], 'a view made before the state moved is made again');
  assert.is(kept.size, 100, 'the views made before the state moved no longer take room');
  assert.is(ledger.characters, 100, 'nor count in the process');
  for (let id = 20; id < 29; id++) view(id);
  view(3);
  assert.equal(made.filter((id) => id === 3), [3], 'a view made after the state moved is kept, not passed over for older ones');
  assert.is(ledger.characters, kept.size);

  // A view kept while it was being made (its maker fetched it too) is counted once.
  const nested = new MessageViews(state, ledger.open({ dropKeptJson: () => nested.clear() }), 1000, 300);
  nested.get(1, 0, () => (nested.get(1, 0, () => '"one"'), '"three"'));
  assert.is(nested.size, '"three"'.length);
  assert.is(ledger.characters, kept.size + nested.size);
});

views.run();
