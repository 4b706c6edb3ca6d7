// Restricted user access (Zulip's can_access_all_users_group): in an organization that limits it
// to members, a guest sees bots, themselves, the people of their channels and of their direct
// messages — everyone else is an "Unknown user" placeholder (or left out, for clients that declare
// user_list_incomplete), refused by ID, and never the subject of the guest's events. Gaining and
// losing sight of someone is announced, and register + events == a fresh register throughout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, MODERN_CAPABILITIES, register, type Event, type Registered } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference, specUserFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Context {
  server: TestServer;
  iago: ApiClient;
  hamlet: ApiClient;
  polonius: ApiClient;
  desdemona: ApiClient;
  ids: Record<'iago' | 'polonius' | 'desdemona', number>;
  groups: Record<'everyone' | 'members', number>;
}

const access = suite<Context>('restricted user access');

access.before(async (context) => {
  context.server = await startTestServer();
  context.iago = await context.server.as('iago@zulip.com');
  context.hamlet = await context.server.as('hamlet@zulip.com');
  context.polonius = await context.server.as('polonius@zulip.com');
  context.desdemona = await context.server.as('desdemona@zulip.com');
  const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);
  context.ids = { iago: await idOf(context.iago), polonius: await idOf(context.polonius), desdemona: await idOf(context.desdemona) };
  const groups = (await context.iago.get('/user_groups')).body.user_groups as { id: number; name: string }[];
  const group = (name: string) => groups.find((candidate) => candidate.name === name)!.id;
  context.groups = { everyone: group('role:everyone'), members: group('role:members') };
  // Newcomers join the default channels: Verona, the guest's, is not one here.
  const verona = Number((await context.iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.is((await context.iago.delete('/default_streams', { stream_id: verona })).status, 200);
});
access.after(async ({ server }) => server.stop());

/** Limits (or opens) who guests can see. */
async function restrict(context: Context, restricted: boolean): Promise<void> {
  const response = await context.iago.patch('/realm', { can_access_all_users_group: { new: restricted ? context.groups.members : context.groups.everyone } });
  assert.is(response.status, 200, JSON.stringify(response.body));
}

type Listed = { user_id: number; full_name: string; email: string; is_bot: boolean; avatar_url: string };
const listed = async (client: ApiClient): Promise<Listed[]> => (await client.get('/users')).body.members as Listed[];
const named = (users: Listed[], id: number) => users.find((user) => user.user_id === id);

let counter = 0;
/** A new member in no channel: nobody's guest can see them. */
async function newcomer(context: Context): Promise<{ id: number; client: ApiClient }> {
  const email = `stranger${++counter}@zulip.com`;
  const created = await context.iago.post('/users', { email, full_name: `Stranger ${counter}`, password: 'long enough' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  return { id: Number(created.body.user_id), client: await context.server.as(email) };
}

/** A refusal in Zulip's shape, with this message. */
function assertRefused(response: { status: number; body: Record<string, unknown> }, msg: string, label: string): void {
  assert.equal([response.status, response.body.result, response.body.code, response.body.msg], [400, 'error', 'BAD_REQUEST', msg], label);
}

const events = async (client: ApiClient, queue: Registered): Promise<Event[]> =>
  ((await client.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[]).filter((event) => event.type !== 'heartbeat');

access('by default a guest sees everyone as they are', async (context) => {
  const users = await listed(context.polonius);
  assert.is(named(users, context.ids.desdemona)?.full_name, 'Desdemona');
  assert.is((await context.polonius.get(`/users/${context.ids.desdemona}`)).status, 200);
});

access('restricted: a guest lists people outside their channels as "Unknown user", and is refused them by ID, e-mail, status and presence', async (context) => {
  await restrict(context, true);
  try {
    const response = await context.polonius.get('/users');
    assertMatchesReference('GET /users', response.body, { ...specUserFields, at: ['members[]'] });
    const users = response.body.members as Listed[];
    // Verona's subscribers, and every bot.
    assert.is(named(users, context.ids.iago)?.full_name, 'Iago');
    assert.ok(users.filter((user) => user.is_bot).length > 0);
    const stranger = named(users, context.ids.desdemona)!;
    assert.is(stranger.full_name, 'Unknown user');
    assert.match(stranger.email, new RegExp(`^user${context.ids.desdemona}@`));
    assert.not.match(JSON.stringify(stranger), /desdemona/i);
    const verona = Number((await context.iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
    for (const path of [`/users/${context.ids.desdemona}`, '/users/desdemona@zulip.com', `/users/${context.ids.desdemona}/status`, `/users/${context.ids.desdemona}/presence`, `/users/${context.ids.desdemona}/subscriptions/${verona}`]) {
      assertRefused(await context.polonius.get(path), 'Insufficient permission', path);
    }
    assertRefused(await context.polonius.post(`/users/me/muted_users/${context.ids.desdemona}`), 'Insufficient permission', 'muting someone unseen');
    // Members and administrators still see everyone.
    assert.is(named(await listed(context.hamlet), context.ids.desdemona)?.full_name, 'Desdemona');
    assert.is((await context.iago.get(`/users/${context.ids.desdemona}`)).status, 200);
  } finally {
    await restrict(context, false);
  }
});

access('restricted: register lists placeholders, or leaves them out for a client with user_list_incomplete; presence and statuses only of those seen', async (context) => {
  assert.is((await context.desdemona.post('/users/me/status', { status_text: 'at the castle' })).status, 200);
  assert.is((await context.desdemona.post('/users/me/presence', { status: 'active' })).status, 200);
  await restrict(context, true);
  try {
    const types = ['realm_user', 'presence', 'user_status'];
    const complete = (await register(context.polonius, { fetch_event_types: types })).state;
    const incomplete = (await register(context.polonius, { fetch_event_types: types, client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: true } })).state;
    const people = (state: typeof complete) => state.realm_users!.map((user) => user.user_id);
    assert.is(complete.realm_users!.find((user) => user.user_id === context.ids.desdemona)?.full_name, 'Unknown user');
    assert.not.ok(people(incomplete).includes(context.ids.desdemona));
    assert.equal(people(complete).filter((id) => id !== context.ids.desdemona), people(incomplete));
    for (const state of [complete, incomplete]) {
      assert.not.ok(String(context.ids.desdemona) in (state.presences as object));
      assert.not.ok(String(context.ids.desdemona) in (state.user_status as object));
    }
    const hamlet = (await register(context.hamlet, { fetch_event_types: types })).state;
    assert.ok(String(context.ids.desdemona) in (hamlet.user_status as object));
  } finally {
    await restrict(context, false);
  }
});

access('restricted: a channel message from someone the guest cannot see shows its sender as an "Unknown user", fetched every way and as it arrives', async (context) => {
  await restrict(context, true);
  try {
    const stranger = await newcomer(context);
    const queue = await register(context.polonius, { event_types: ['message'], client_gravatar: true });
    const placeholderAvatar = named(await listed(context.polonius), stranger.id)!.avatar_url;
    // Zulip's can_access_public_streams: a guest may not follow every public channel.
    assertRefused(await context.polonius.post('/register', { event_types: JSON.stringify(['message']), all_public_streams: true }), 'User not authorized for this query', 'all_public_streams');
    // A member may write to a public channel without joining it; the guest in it cannot see them.
    const sent = await stranger.client.post('/messages', { type: 'stream', to: 'Verona', topic: 'unseen', content: 'from outside' });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    type Shown = { id: number; sender_id: number; sender_full_name: string; sender_email: string; avatar_url: string | null };
    const unknown = (message: Shown | undefined, label: string) => {
      assert.ok(message, label);
      assert.equal([message!.sender_id, message!.sender_full_name], [stranger.id, 'Unknown user'], label);
      assert.match(message!.sender_email, new RegExp(`^user${stranger.id}@`), label);
      assert.not.match(JSON.stringify(message), /stranger/i, label);
      assert.is(message!.avatar_url, placeholderAvatar, `${label}: the placeholder's avatar`);
    };
    const window = await context.polonius.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'unseen' }] });
    assertMatchesReference('GET /messages', window.body);
    unknown((window.body.messages as Shown[]).find((message) => message.id === sent.body.id), 'in a window');
    unknown(((await context.polonius.get('/messages', { message_ids: JSON.stringify([sent.body.id]) })).body.messages as Shown[])[0], 'by message_ids');
    unknown((await context.polonius.get(`/messages/${String(sent.body.id)}`)).body.message as Shown, 'by ID');
    const [event] = (await events(context.polonius, queue)).filter((candidate) => candidate.type === 'message');
    unknown(event?.message as Shown, 'in the message event');
    // Those who may see everyone see the sender.
    const seen = (await context.hamlet.get(`/messages/${String(sent.body.id)}`)).body.message as Shown;
    assert.is(seen.sender_full_name, `Stranger ${counter}`);
  } finally {
    await restrict(context, false);
  }
});

access('restricted: a guest cannot start a direct message with someone unseen; being written to lets them see the writer, announced first', async (context) => {
  await restrict(context, true);
  try {
    const stranger = await newcomer(context);
    const refused = await context.polonius.post('/messages', { type: 'direct', to: JSON.stringify([stranger.id]), content: 'hello?' });
    assertRefused(refused, 'You do not have permission to access some of the recipients.', 'a direct message to someone unseen');
    const queue = await register(context.polonius, { event_types: ['realm_user', 'message'] });
    assert.is((await stranger.client.post('/messages', { type: 'direct', to: JSON.stringify([context.ids.polonius]), content: 'I am here' })).status, 200);
    const received = await events(context.polonius, queue);
    for (const event of received) assertEventMatchesReference(event, event.type === 'realm_user' ? { ...specUserFields, at: ['person'] } : {});
    assert.equal(received.map((event) => [event.type, event.op ?? '']), [['realm_user', 'add'], ['message', '']]);
    assert.is((received[0]!.person as Listed).full_name, `Stranger ${counter}`);
    assert.is((await context.polonius.get(`/users/${stranger.id}`)).status, 200);
    assert.is((await context.polonius.post('/messages', { type: 'direct', to: JSON.stringify([stranger.id]), content: 'hello!' })).status, 200);
  } finally {
    await restrict(context, false);
  }
});

access('restricted: guests hear of new people as placeholders, gain them with a shared channel and lose them when it ends; nothing of the unseen in between; register + events == a fresh register', async (context) => {
  await restrict(context, true);
  try {
    const domain = String((await register(context.iago, { fetch_event_types: ['realm'] })).state.realm_bot_domain);
    const kinds = [false, true].map((incomplete) => ({ incomplete, capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: incomplete } }));
    const params = (capabilities: object) => ({ fetch_event_types: ['realm_user', 'user_status'], event_types: ['realm_user', 'user_status'], client_capabilities: capabilities });
    const queues = await Promise.all(kinds.map((kind) => register(context.polonius, params(kind.capabilities))));
    const hamletQueue = await register(context.hamlet, { event_types: ['realm_user', 'user_status'] });

    const stranger = await newcomer(context);
    // Changes to someone the guest cannot see reach others, not the guest.
    assert.is((await stranger.client.patch('/settings', { full_name: 'Stranger Renamed' })).status, 200);
    assert.is((await stranger.client.post('/users/me/status', { status_text: 'unseen' })).status, 200);
    assert.is((await context.iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Verona' }], principals: [stranger.id] })).status, 200);
    assert.is((await stranger.client.post('/users/me/status', { status_text: 'seen' })).status, 200);
    assert.is((await context.iago.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['Verona']), principals: JSON.stringify([stranger.id]) })).status, 200);

    const hamletSaw = (await events(context.hamlet, hamletQueue)).filter((event) => event.user_id === stranger.id || (event.person as { user_id?: number } | undefined)?.user_id === stranger.id);
    assert.equal(hamletSaw.map((event) => [event.type, event.op ?? '']), [['realm_user', 'add'], ['realm_user', 'update'], ['user_status', ''], ['user_status', '']]);
    for (const [index, kind] of kinds.entries()) {
      const queue = queues[index]!;
      const received = (await events(context.polonius, queue)).filter((event) => event.user_id === stranger.id || (event.person as { user_id?: number } | undefined)?.user_id === stranger.id);
      for (const event of received) assertEventMatchesReference(event, event.op === 'add' ? { ...specUserFields, at: ['person'] } : {});
      const placeholder = kind.incomplete ? [] : [['realm_user', 'add', 'Unknown user']];
      assert.equal(
        received.map((event) => [event.type, event.op ?? '', (event.person as { full_name?: string } | undefined)?.full_name ?? event.status_text]),
        [...placeholder, ['realm_user', 'add', 'Stranger Renamed'], ['user_status', '', 'seen'], ['realm_user', 'remove', 'Unknown user']],
        `user_list_incomplete: ${kind.incomplete}`,
      );
      for (const event of await events(context.polonius, queue)) applyEvent(queue.state, event, { userListIncomplete: kind.incomplete, fakeEmailDomain: domain });
      const fresh = await register(context.polonius, params(kind.capabilities));
      assert.equal(comparable(queue.state), comparable(fresh.state), `user_list_incomplete: ${kind.incomplete}`);
    }
  } finally {
    await restrict(context, false);
  }
});

access.run();
