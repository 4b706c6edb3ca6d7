// Zulip's own JavaScript library (zulip-js, unmodified) drives a session against Parley as a bot or
// an integration would: register a queue, send, read, star, react, edit, and receive the events of
// another user's actions. The library's own encodings (form bodies, JSON-encoded lists, query
// strings for DELETE and PATCH) are what is tested, with Parley's answers checked by the reference.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ZulipClient } from 'zulip-js';
import { assertMatchesReference } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, type TestServer } from './helpers/server.js';

// zulip-js loads a FormData polyfill that replaces Node's own global (isomorphic-form-data); the
// library keeps its reference, and the rest of the suite gets Node's back.
const nodeFormData = globalThis.FormData;
const { default: zulip } = await import('zulip-js');
globalThis.FormData = nodeFormData;

const session = suite<{ server: TestServer }>('zulip-js session');

session.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
session.after(async ({ server }) => server.stop());

async function clientFor(server: TestServer, email: string): Promise<ZulipClient> {
  const { apiKey } = await server.parley.realms.forHost('')!.ask('users.apiKey', null, { email });
  return zulip({ username: email, apiKey, realm: server.baseUrl });
}

const succeeds = (answer: { result: string; msg: string }, what = ''): void => assert.is(answer.result, 'success', `${what} ${answer.msg}`);

type Event = { id: number; type: string; op?: string; message?: { id: number; content: string }; message_id?: number; emoji_name?: string };

/** Waits for the events of a queue as the library's users do: GET /events, blocking. */
async function nextEvents(client: ZulipClient, queueId: string, lastEventId: number, count: number): Promise<Event[]> {
  const events: Event[] = [];
  let last = lastEventId;
  while (events.length < count) {
    const answer = await client.events.retrieve({ queue_id: queueId, last_event_id: last });
    succeeds(answer);
    const received = (answer.events as Event[]).filter((event) => event.type !== 'heartbeat');
    events.push(...received);
    last = Math.max(last, ...(answer.events as Event[]).map((event) => event.id));
  }
  return events;
}

session('a bot-like session: profile, subscriptions, send, fetch, star, react, edit, events', async ({ server }) => {
  const hamlet = await clientFor(server, 'hamlet@zulip.com');
  const othello = await clientFor(server, 'othello@zulip.com');

  const me = await hamlet.users.me.getProfile();
  assertMatchesReference('GET /users/me', me, { properties: { is_imported_stub: { type: 'boolean' } } });
  assert.is(me.full_name, 'King Hamlet');
  const subscriptions = await hamlet.streams.subscriptions.retrieve();
  assert.ok((subscriptions.subscriptions as { name: string }[]).some((sub) => sub.name === 'Verona'));

  const registered = await hamlet.queues.register({ event_types: ['message', 'reaction', 'update_message'], apply_markdown: 'true' });
  succeeds(registered);
  const queueId = String(registered.queue_id);

  const sent = await othello.messages.send({ type: 'stream', to: 'Verona', topic: 'zulip-js', content: 'Sent by **zulip-js**' });
  assertMatchesReference('POST /messages', sent);
  const id = Number(sent.id);
  const [arrived] = await nextEvents(hamlet, queueId, Number(registered.last_event_id), 1);
  assert.equal([arrived!.type, arrived!.message!.id, arrived!.message!.content], ['message', id, '<p>Sent by <strong>zulip-js</strong></p>']);

  const fetched = await hamlet.messages.retrieve({ anchor: id, num_before: 0, num_after: 0, narrow: [{ operator: 'stream', operand: 'Verona' }] });
  assertMatchesReference('GET /messages', fetched);
  assert.equal((fetched.messages as { id: number }[]).map((message) => message.id), [id]);

  succeeds(await hamlet.messages.flags.add({ messages: [id], flag: 'starred' }));
  succeeds(await hamlet.reactions.add({ message_id: id, emoji_name: 'octopus' }));
  succeeds(await othello.messages.update({ message_id: id, content: 'Edited by *zulip-js*' }));
  const events = await nextEvents(hamlet, queueId, arrived!.id, 2);
  assert.equal(
    events.map((event) => [event.type, event.op ?? '', event.emoji_name ?? '', event.message_id]),
    [
      ['reaction', 'add', 'octopus', id],
      ['update_message', '', '', id],
    ],
  );
  succeeds(await hamlet.reactions.remove({ message_id: id, emoji_name: 'octopus' }), 'DELETE with its parameters in the query string:');
  const again = (await hamlet.messages.retrieve({ anchor: id, num_before: 0, num_after: 0 })).messages as { flags: string[]; reactions: unknown[] }[];
  assert.equal([again[0]!.flags.includes('starred'), again[0]!.reactions], [true, []]);
  succeeds(await hamlet.queues.deregister({ queue_id: queueId }));
});

session.run();
