// The web client's state model (src/web/app/model, DOM-free) against a real server: a register
// state plus every event since, applied by the client's own applyEvent, equals a fresh register's
// state — unread counts, mentions, channels, users, conversations — and its message windows equal
// a fresh fetch of the same narrows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEvent } from '../src/web/app/model/apply.js';
import { recentConversations } from '../src/web/app/model/conversations.js';
import { addFetched } from '../src/web/app/model/messages.js';
import { FETCH_EVENT_TYPES, stateFromRegister, type ChatState, type RegisterAnswer } from '../src/web/app/model/state.js';
import { countUnread } from '../src/web/app/model/unread.js';
import { widgetOf } from '../src/web/app/model/widgets.js';
import { apiNarrow, narrowHash, type Narrow } from '../src/web/app/narrow.js';
import type { Message, QueuedEvent } from '../src/web/app/types.js';
import type { ApiClient } from './helpers/client.js';
import { startTestServer } from './helpers/server.js';

const registerParams = { fetch_event_types: FETCH_EVENT_TYPES, apply_markdown: true, client_gravatar: false, slim_presence: true };

async function registered(client: ApiClient): Promise<RegisterAnswer> {
  const response = await client.post('/register', registerParams);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body as unknown as RegisterAnswer;
}

async function fetchWindow(client: ApiClient, state: ChatState, narrow: Narrow): Promise<void> {
  const response = await client.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: apiNarrow(narrow), apply_markdown: true, client_gravatar: false });
  assert.is(response.status, 200, JSON.stringify(response.body));
  addFetched(state, narrow, response.body.messages as Message[], { oldest: response.body.found_oldest as boolean, newest: response.body.found_newest as boolean });
}

/** What the page shows of a state: counts, lists and the messages of each window. */
function shown(state: ChatState) {
  const counts = countUnread(state.unread, state.meId);
  return {
    unread: [...state.unread.byId.keys()].sort((a, b) => a - b),
    mentions: [...state.unread.mentions].sort((a, b) => a - b),
    channels: [...counts.channels].sort(),
    topics: [...counts.topics].sort(),
    conversations: [...counts.conversations].sort(),
    recent: recentConversations(state.conversations),
    subscriptions: [...state.subscriptions.values()].map(({ stream_id, name, color, is_muted, pin_to_top }) => ({ stream_id, name, color, is_muted, pin_to_top })).sort((a, b) => a.stream_id - b.stream_id),
    users: [...state.users.values()].map(({ user_id, full_name, email, role, is_active }) => ({ user_id, full_name, email, role, is_active })).sort((a, b) => a.user_id - b.user_id),
    windows: [...state.windows.values()]
      .filter((window) => !window.stale)
      .map((window) => ({
        narrow: narrowHash(window.narrow),
        messages: window.ids.map((id) => {
          const { content, subject, stream_id, flags, reactions, submessages } = state.messages.get(id)!;
          return { id, content, subject, stream_id, flags: [...flags].sort(), reactions, submessages };
        }),
      }))
      .sort((a, b) => a.narrow.localeCompare(b.narrow)),
  };
}

test('register + events, applied by the web client, equals a fresh register and fresh fetches', async () => {
  const server = await startTestServer();
  try {
    const othello = await server.as('othello@zulip.com');
    const hamlet = await server.as('hamlet@zulip.com');
    const iago = await server.as('iago@zulip.com');
    const id = async (client: ApiClient, path: string, params: Record<string, unknown>) => {
      const response = await client.post(path, params);
      assert.is(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      return response.body.id as number;
    };
    const verona = (await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id as number;
    const users = Object.fromEntries(((await iago.get('/users')).body.members as { email: string; user_id: number }[]).map((user) => [user.email, user.user_id]));

    const register = await registered(othello);
    const state = stateFromRegister(register);
    const narrows: Narrow[] = [
      { kind: 'all' },
      { kind: 'channel', channelId: verona },
      { kind: 'topic', channelId: verona, topic: 'model' },
      { kind: 'dm', userIds: [users['hamlet@zulip.com']!] },
      { kind: 'mentions' },
      { kind: 'starred' },
    ];
    for (const narrow of narrows) await fetchWindow(othello, state, narrow);

    const first = await id(hamlet, '/messages', { type: 'stream', to: verona, topic: 'model', content: 'One' });
    const second = await id(hamlet, '/messages', { type: 'stream', to: verona, topic: 'model', content: 'Two, for @**Othello, the Moor of Venice**' });
    const moved = await id(hamlet, '/messages', { type: 'stream', to: verona, topic: 'elsewhere', content: 'Moved into model' });
    const direct = await id(hamlet, '/messages', { type: 'direct', to: [users['othello@zulip.com']], content: 'Psst' });
    await id(hamlet, '/messages', { type: 'direct', to: [users['othello@zulip.com'], users['cordelia@zulip.com']], content: 'All three of us' });
    const gone = await id(hamlet, '/messages', { type: 'stream', to: verona, topic: 'model', content: 'Soon deleted' });
    const poll = await id(hamlet, '/messages', { type: 'stream', to: verona, topic: 'model', content: '/poll Lunch?\nSoup\nSalad' });
    const todo = await id(hamlet, '/messages', { type: 'direct', to: [users['othello@zulip.com']], content: '/todo Errands\nPost office' });
    const widgetEvent = (client: ApiClient, messageId: number, event: Record<string, unknown>) => client.post('/submessage', { message_id: messageId, msg_type: 'widget', content: JSON.stringify(event) });
    // One after another, as they are written: requests on separate connections may reach the
    // server in any order (with several threads serving clients, they do), and some undo others.
    const steps = [
      () => othello.post('/messages/flags', { messages: [first], op: 'add', flag: 'read' }),
      () => othello.post('/messages/flags', { messages: [second], op: 'add', flag: 'starred' }),
      () => hamlet.patch(`/messages/${first}`, { content: 'One, **edited**' }),
      () => hamlet.patch(`/messages/${moved}`, { topic: 'model', propagate_mode: 'change_one' }),
      () => hamlet.post(`/messages/${second}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }),
      () => othello.post(`/messages/${direct}/reactions`, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }),
      () => iago.delete(`/messages/${gone}`),
      () => widgetEvent(othello, poll, { type: 'vote', key: 'canned,0', vote: 1 }),
      () => widgetEvent(iago, poll, { type: 'new_option', idx: 0, option: 'Stew' }),
      () => widgetEvent(othello, todo, { type: 'strike', key: '0,canned' }),
      () => othello.post('/messages/flags', { messages: [first], op: 'remove', flag: 'read' }),
      () => othello.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: verona, property: 'is_muted', value: true }] }),
      () => othello.post('/users/me/subscriptions', { subscriptions: [{ name: 'Model test' }] }),
      () => iago.patch(`/users/${users['cordelia@zulip.com']}`, { full_name: 'Cordelia, renamed' }),
    ];
    for (const step of steps) {
      const response = await step();
      assert.is(response.status, 200, JSON.stringify(response.body));
    }

    const events = await othello.get('/events', { queue_id: register.queue_id, last_event_id: register.last_event_id, dont_block: true });
    assert.is(events.status, 200);
    const received = events.body.events as QueuedEvent[];
    assert.ok(received.length >= 15, `events: ${received.map((event) => event.type).join(', ')}`);
    for (const event of received) applyEvent(state, event, Date.now());

    const fresh = stateFromRegister(await registered(othello));
    for (const narrow of narrows) await fetchWindow(othello, fresh, narrow);
    // A window a move brought messages into is fetched again when shown: as the page does.
    for (const [key, window] of state.windows) if (window.stale) await fetchWindow(othello, state, window.narrow).then(() => assert.ok(state.windows.get(key)));
    assert.equal(shown(state), shown(fresh));
    // The steps did change what is shown.
    assert.ok(state.unread.byId.has(first) && state.unread.mentions.has(second) && !state.messages.has(gone));
    assert.ok(state.messages.get(second)!.flags.includes('starred'));
    const lunch = widgetOf(state.messages.get(poll)!, state.meId);
    assert.equal(lunch?.kind === 'poll' && lunch.options.map(({ option, voters }) => [option, voters]), [['Soup', [users['othello@zulip.com']]], ['Salad', []], ['Stew', []]]);
    const errands = widgetOf(state.messages.get(todo)!, state.meId);
    assert.equal(errands?.kind === 'todo' && errands.tasks.map(({ task, completed }) => [task, completed]), [['Post office', true]]);
  } finally {
    await server.stop();
  }
});

test.run();
