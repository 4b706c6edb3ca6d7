// Emoji reactions (POST/DELETE /messages/{id}/reactions): Zulip's emoji checks and votes, every
// error of the reference, who may react and who hears of it, reactions in message objects, and
// their survival across a restart.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, testConfig, type TestServer } from './helpers/server.js';

const reactions = suite<{ server: TestServer }>('emoji reactions');

reactions.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
reactions.after(async ({ server }) => server.stop());

const ADD = 'POST /messages/{message_id}/reactions';
const REMOVE = 'DELETE /messages/{message_id}/reactions';

let counter = 0;
async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', { content: `reactions ${++counter}`, ...params });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

const userId = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function react(client: ApiClient, id: number, params: Record<string, unknown>): Promise<void> {
  const response = await client.post(`/messages/${id}/reactions`, params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference(ADD, response.body);
}

/** The message's reactions as GET /messages/{id} shows them (validated against the reference). */
async function reactionsOf(client: ApiClient, id: number): Promise<Record<string, unknown>[]> {
  const response = await client.get(`/messages/${id}`);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages/{message_id}', response.body);
  return (response.body.message as { reactions: Record<string, unknown>[] }).reactions;
}

async function refused(request: Promise<{ status: number; body: Record<string, unknown> }>, code: string, msg: string): Promise<void> {
  const response = await request;
  assert.equal([response.status, response.body.code, response.body.msg], [400, code, msg]);
  assertMatchesComponent('CodedError', response.body);
}

reactions('a reaction by name is stored with its code and type, shown in message objects, and removed by name', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'reacting' });
  assert.equal(await reactionsOf(othello, id), []);
  await react(othello, id, { emoji_name: 'octopus' });
  const othelloId = await userId(othello);
  const octopus = { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: othelloId };
  assert.equal(await reactionsOf(hamlet, id), [octopus]);
  const window = await hamlet.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [] });
  assertMatchesReference('GET /messages', window.body);
  assert.equal((window.body.messages as { reactions: unknown }[])[0]!.reactions, [octopus]);
  const removed = await othello.delete(`/messages/${id}/reactions`, { emoji_name: 'octopus' });
  assert.is(removed.status, 200, JSON.stringify(removed.body));
  assertMatchesReference(REMOVE, removed.body);
  assert.equal(await reactionsOf(hamlet, id), []);
});

reactions("name, code and type together; Zulip's extra emoji; a vote for an existing reaction takes its name", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'votes' });
  await react(hamlet, id, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  // The project's spec spells zulip_extra_emoji service_extra_emoji: the same reaction.
  const again = await hamlet.post(`/messages/${id}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
  assert.equal([again.status, again.body.code], [400, 'REACTION_ALREADY_EXISTS']);
  await react(othello, id, { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  // Without an existing +1 this name does not match the code; with one, it is a vote for it.
  await react(cordelia, id, { emoji_name: 'not_the_name', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  const [hamletId, othelloId, cordeliaId] = [await userId(hamlet), await userId(othello), await userId(cordelia)];
  assert.equal(await reactionsOf(hamlet, id), [
    { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: hamletId },
    { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: othelloId },
    { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: cordeliaId },
  ]);
  // Zulip's clients (zulip-terminal's `+`) name emoji from Zulip's own table: thumbs_up for 👍.
  await react(hamlet, id, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  assert.is((await hamlet.delete(`/messages/${id}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' })).status, 200);
  // Removal by code and type, whatever the name.
  assert.is((await othello.delete(`/messages/${id}/reactions`, { emoji_code: '1f44d' })).status, 200);
  assert.is((await hamlet.delete(`/messages/${id}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' })).status, 200);
  assert.equal(await reactionsOf(hamlet, id), [{ emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: cordeliaId }]);
});

reactions('every error of the reference, and nothing changes', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'errors' });
  await react(hamlet, id, { emoji_name: 'tada' });
  const add = (params: Record<string, unknown>) => hamlet.post(`/messages/${id}/reactions`, params);
  const remove = (params: Record<string, unknown>) => hamlet.delete(`/messages/${id}/reactions`, params);
  await refused(add({ emoji_name: 'tada' }), 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  await refused(add({ emoji_name: 'party_popper', emoji_code: '1f389', reaction_type: 'unicode_emoji' }), 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
  await refused(add({ emoji_name: 'no_such_emoji_anywhere' }), 'BAD_REQUEST', "Emoji 'no_such_emoji_anywhere' does not exist");
  await refused(add({ emoji_name: 'car', emoji_code: '1f600', reaction_type: 'unicode_emoji' }), 'BAD_REQUEST', 'Invalid emoji name.');
  await refused(add({ emoji_name: 'Not A Name', emoji_code: '1f600', reaction_type: 'unicode_emoji' }), 'BAD_REQUEST', 'Invalid emoji name.');
  await refused(add({ emoji_name: 'car', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }), 'BAD_REQUEST', 'Invalid emoji code.');
  await refused(add({ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'sticker' }), 'BAD_REQUEST', 'Invalid emoji type.');
  await refused(add({ emoji_name: 'zulip', emoji_code: 'parley', reaction_type: 'zulip_extra_emoji' }), 'BAD_REQUEST', 'Invalid emoji code.');
  await refused(add({ emoji_name: 'party', emoji_code: '1', reaction_type: 'realm_emoji' }), 'BAD_REQUEST', 'Invalid custom emoji.');
  const missing = await add({});
  assert.equal([missing.status, missing.body.code, missing.body.var_name], [400, 'REQUEST_VARIABLE_MISSING', 'emoji_name']);
  await refused(remove({ emoji_name: 'car' }), 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  await refused(remove({ emoji_code: '1f389', reaction_type: 'zulip_extra_emoji' }), 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
  await refused(remove({}), 'BAD_REQUEST', 'At least one of the following arguments must be present: emoji_name, emoji_code');
  await refused(remove({ emoji_name: 'no_such_emoji_anywhere' }), 'BAD_REQUEST', "Emoji 'no_such_emoji_anywhere' does not exist");
  await refused(hamlet.post('/messages/999999999/reactions', { emoji_name: 'car' }), 'BAD_REQUEST', 'Invalid message(s)');
  await refused(hamlet.delete('/messages/999999999/reactions', { emoji_name: 'car' }), 'BAD_REQUEST', 'Invalid message(s)');
  assert.equal(await reactionsOf(hamlet, id), [{ emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji', user_id: await userId(hamlet) }]);
});

reactions('only users who can access the message may react: private channels, direct messages, guests', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const secret = await send(iago, { type: 'stream', to: 'core team', topic: 'secret' });
  await refused(hamlet.post(`/messages/${secret}/reactions`, { emoji_name: 'eyes' }), 'BAD_REQUEST', 'Invalid message(s)');
  await react(desdemona, secret, { emoji_name: 'eyes' });
  const direct = await send(iago, { type: 'direct', to: [await userId(desdemona)] });
  await refused(hamlet.post(`/messages/${direct}/reactions`, { emoji_name: 'eyes' }), 'BAD_REQUEST', 'Invalid message(s)');
  await react(desdemona, direct, { emoji_name: 'eyes' });
  // A public channel's history is open to members who are not subscribed, not to guests.
  const denmark = await send(hamlet, { type: 'stream', to: 'Denmark', topic: 'open' });
  await refused(polonius.post(`/messages/${denmark}/reactions`, { emoji_name: 'eyes' }), 'BAD_REQUEST', 'Invalid message(s)');
  const verona = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'open' });
  await react(polonius, verona, { emoji_name: 'eyes' });
  const scotland = await send(iago, { type: 'stream', to: 'Scotland', topic: 'open' });
  await react(hamlet, scotland, { emoji_name: 'eyes' });
  assert.equal((await reactionsOf(iago, scotland)).length, 1);
});

reactions('reaction events reach exactly who can see the message, match the reference, and keep register current', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const direct = await send(hamlet, { type: 'direct', to: [await userId(othello)] });
  const verona = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'heard' });
  const queues = new Map<ApiClient, Awaited<ReturnType<typeof register>>>();
  for (const client of [iago, hamlet, othello, desdemona]) queues.set(client, await register(client, { client_gravatar: false }));
  await react(othello, direct, { emoji_name: 'heart' });
  await react(desdemona, verona, { emoji_name: 'wave' });
  await othello.delete(`/messages/${direct}/reactions`, { emoji_name: 'heart' });
  await server.parley.realms.idle();
  const reactionEvents = async (client: ApiClient): Promise<Event[]> => {
    const { queueId } = queues.get(client)!;
    const events = (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
    return events.filter((event) => event.type === 'reaction');
  };
  const summary = (events: Event[]) => events.map((event) => [event.op, event.message_id, event.emoji_name]);
  assert.equal(summary(await reactionEvents(hamlet)), [['add', direct, 'heart'], ['add', verona, 'wave'], ['remove', direct, 'heart']]);
  assert.equal(summary(await reactionEvents(othello)), [['add', direct, 'heart'], ['add', verona, 'wave'], ['remove', direct, 'heart']]);
  assert.equal(summary(await reactionEvents(iago)), [['add', verona, 'wave']], 'a direct message is not iago’s');
  assert.equal(summary(await reactionEvents(desdemona)), [['add', verona, 'wave']], 'the reacting user hears of it though not subscribed');
  const [added] = await reactionEvents(hamlet);
  assertEventMatchesReference(added!);
  assert.equal(added!.user, { user_id: await userId(othello), email: 'othello@zulip.com', full_name: 'Othello, the Moor of Venice', is_mirror_dummy: false });
  for (const event of await reactionEvents(othello)) assertEventMatchesReference(event);
  const { queueId, state } = queues.get(hamlet)!;
  for (const event of await pollEvents(hamlet, queueId, 1)) applyEvent(state, event);
  assert.equal(comparable(state), comparable((await register(hamlet, { client_gravatar: false })).state));
});

reactions('reactions are part of the stored message: a restart keeps them', async () => {
  const config = testConfig();
  const first = await startTestServer(config);
  const hamlet = await first.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'durable' });
  await react(hamlet, id, { emoji_name: 'rocket' });
  const hamletId = await userId(hamlet);
  await first.parley.close();
  const second = await startTestServer(config);
  try {
    const again = await second.as('hamlet@zulip.com');
    assert.equal(await reactionsOf(again, id), [{ emoji_name: 'rocket', emoji_code: '1f680', reaction_type: 'unicode_emoji', user_id: hamletId }]);
  } finally {
    await second.stop();
  }
});

reactions('the reaction endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/messages/1/reactions'],
    ['DELETE', '/messages/1/reactions'],
  ]);
});

reactions.run();
