// Register's client_capabilities, one row per capability that changes what a client is sent: a
// client that declares it and one that does not each register, the same change is made, and each
// gets the events (and the register state) Zulip gives its kind of client — and register + events
// still equals a fresh register for both.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, MODERN_CAPABILITIES, register, type Event } from './helpers/events.js';
import { ONE_PIXEL_PNG, upload } from './helpers/files.js';
import { assertEventMatchesReference, specUserFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const capabilities = suite<{ server: TestServer }>('client capabilities');

capabilities.before(async (context) => {
  context.server = await startTestServer();
});
capabilities.after(async ({ server }) => server.stop());

let counter = 0;
const fresh = (prefix: string): string => `${prefix} ${++counter}`;

interface Row {
  capability: string;
  /** Who registers: iago unless the change is iago's own and not told to its author, or is seen
   * differently by a guest. */
  observer?: 'hamlet' | 'polonius';
  /** What the organization must be like before the clients register, and after the row. */
  setup?(iago: ApiClient, on: boolean): Promise<void>;
  /** What register fetches and listens to. */
  types: string[];
  /** Register's other parameters for each kind of client. */
  extra?: (declared: boolean) => Record<string, unknown>;
  /** The change, made by the test's clients. */
  act(clients: { iago: ApiClient; hamlet: ApiClient; server: TestServer }): Promise<void>;
  /** The events each kind of client gets, as [type, op] pairs (after the act). */
  declared: (events: Event[]) => void;
  undeclared: (events: Event[]) => void;
}

const shape = (events: Event[]) => events.map((event) => [event.type, event.op ?? '']);

/** Every topic name the events give, by event type, in order. */
const topicNames = (events: Event[]) =>
  events.map((event) => {
    const details = Object.values((event.message_details as Record<string, { topic?: string }> | undefined) ?? {});
    const named = [(event.message as { subject?: string } | undefined)?.subject, event.orig_subject, event.subject, event.topic, event.topic_name, ...details.map((detail) => detail.topic)];
    return [event.type, ...named.filter((name) => name !== undefined)];
  });

/** The topic the empty_topic_name row moves a message from. */
let movedFrom = '';

/** The empty_topic_name row's events, the empty topic named `name` in each. */
const expectedTopicNames = (name: string) => [
  ['message', name],
  ['message', movedFrom],
  ['update_message_flags'],
  ['update_message_flags', name],
  ['user_topic', name],
  ['typing', name],
  ['update_message', movedFrom, name],
  ['delete_message', name],
];

const rows: Row[] = [
  {
    capability: 'archived_channels',
    types: ['stream', 'subscription'],
    async act({ iago }) {
      const name = fresh('to archive');
      await iago.post('/users/me/subscriptions', { subscriptions: [{ name }] });
      const id = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
      assert.is((await iago.delete(`/streams/${id}`)).status, 200);
      assert.is((await iago.patch(`/streams/${id}`, { is_archived: false })).status, 200);
      assert.is((await iago.delete(`/streams/${id}`)).status, 200);
    },
    // Both hear of the channel's creation first.
    declared: (events) => assert.equal(events.filter((event) => event.type === 'stream').map((event) => [event.op, event.property, event.value]), [['create', undefined, undefined], ['update', 'is_archived', true], ['update', 'is_archived', false], ['update', 'is_archived', true]]),
    undeclared: (events) => assert.equal(events.filter((event) => event.type === 'stream').map((event) => event.op), ['create', 'delete', 'create', 'delete']),
  },
  {
    capability: 'bulk_message_deletion',
    // No state follows deletions alone (unread counts are the message type's, tested elsewhere).
    types: ['delete_message'],
    async act({ iago }) {
      const topic = fresh('deleted');
      for (const content of ['one', 'two']) await iago.post('/messages', { type: 'stream', to: 'Verona', topic, content });
      const id = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
      assert.is((await iago.post(`/streams/${id}/delete_topic`, { topic_name: topic })).status, 200);
    },
    declared: (events) => {
      const deletions = events.filter((event) => event.type === 'delete_message');
      assert.is(deletions.length, 1);
      assert.is((deletions[0]!.message_ids as number[]).length, 2);
    },
    undeclared: (events) => {
      const deletions = events.filter((event) => event.type === 'delete_message');
      assert.equal(deletions.map((event) => [typeof event.message_id, 'message_ids' in event]), [['number', false], ['number', false]]);
    },
  },
  {
    capability: 'include_deactivated_groups',
    types: ['realm_user_groups'],
    async act({ iago, server }) {
      const created = await iago.post('/user_groups/create', { name: fresh('retired'), description: 'soon gone', members: JSON.stringify([Number((await iago.get('/users/me')).body.user_id)]) });
      const id = Number(created.body.group_id);
      assert.is((await iago.post(`/user_groups/${id}/deactivate`)).status, 200);
      assert.is((await iago.patch(`/user_groups/${id}`, { description: 'gone' })).status, 200);
      const hamletId = Number((await (await server.as('hamlet@zulip.com')).get('/users/me')).body.user_id);
      assert.is((await iago.post(`/user_groups/${id}/members`, { add: JSON.stringify([hamletId]) })).status, 200);
    },
    declared: (events) => assert.equal(events.map((event) => [event.op, Object.keys((event.data as object | undefined) ?? {})]), [['add', []], ['update', ['deactivated']], ['update', ['description']], ['add_members', []]]),
    undeclared: (events) => assert.equal(shape(events), [['user_group', 'add'], ['user_group', 'remove']]),
  },
  {
    capability: 'individual_emoji_changes',
    types: ['realm_emoji'],
    async act({ hamlet }) {
      const name = fresh('emoji').replace(' ', '_');
      assert.is((await upload(hamlet, [{ name: 'one.png', type: 'image/png', bytes: ONE_PIXEL_PNG }], `/realm/emoji/${name}`)).status, 200);
      assert.is((await hamlet.delete(`/realm/emoji/${name}`)).status, 200);
    },
    declared: (events) => assert.equal(events.map((event) => [event.op, event.op === 'update_one' ? event.data : (event.emoji as { deactivated: boolean }).deactivated]), [['add', false], ['update_one', { deactivated: true }]]),
    undeclared: (events) => assert.equal(shape(events), [['realm_emoji', 'update'], ['realm_emoji', 'update']]),
  },
  {
    capability: 'linkifier_url_template',
    types: ['realm_linkifiers'],
    async act({ iago }) {
      assert.is((await iago.post('/realm/filters', { pattern: `#${fresh('T').replace(' ', '')}(?P<id>[0-9]+)`, url_template: 'https://example.com/{id}' })).status, 200);
    },
    declared: (events) => assert.equal(shape(events), [['realm_linkifiers', '']]),
    undeclared: (events) => assert.equal(events, []),
  },
  {
    capability: 'simplified_presence_events',
    types: ['presence'],
    // Each kind of client reads presence in the format of its events.
    extra: (declared) => ({ slim_presence: declared }),
    async act({ iago, server }) {
      const email = `${fresh('online').replace(' ', '')}@zulip.com`;
      assert.is((await iago.post('/users', { email, full_name: email.split('@')[0], password: 'secret-pw' })).status, 200);
      assert.is((await (await server.as(email)).post('/users/me/presence', { status: 'active' })).status, 200);
    },
    declared: (events) => assert.equal(events.map((event) => Object.keys(event).sort()), [['id', 'presences', 'type']]),
    undeclared: (events) => assert.equal(events.map((event) => Object.keys(event).sort()), [['email', 'id', 'presence', 'server_timestamp', 'type', 'user_id']]),
  },
  {
    capability: 'empty_topic_name',
    observer: 'hamlet',
    types: ['message', 'update_message_flags', 'update_message', 'delete_message', 'user_topic', 'typing'],
    async act({ iago, hamlet }) {
      const verona = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
      const sent = async (topic: string) => Number((await iago.post('/messages', { type: 'stream', to: 'Verona', topic, content: 'in general chat' })).body.id);
      const general = await sent('');
      movedFrom = fresh('to move');
      const moved = await sent(movedFrom);
      assert.is((await hamlet.post('/messages/flags', { messages: JSON.stringify([general]), op: 'add', flag: 'read' })).status, 200);
      assert.is((await hamlet.post('/messages/flags', { messages: JSON.stringify([general]), op: 'remove', flag: 'read' })).status, 200);
      assert.is((await hamlet.post('/user_topics', { stream_id: verona, topic: '', visibility_policy: 3 })).status, 200);
      assert.is((await iago.post('/typing', { type: 'stream', stream_id: verona, topic: '', op: 'start' })).status, 200);
      assert.is((await iago.patch(`/messages/${moved}`, { topic: '', propagate_mode: 'change_one', send_notification_to_old_thread: false, send_notification_to_new_thread: false })).status, 200);
      assert.is((await iago.delete(`/messages/${general}`)).status, 200);
    },
    declared: (events) => assert.equal(topicNames(events), expectedTopicNames('')),
    undeclared: (events) => assert.equal(topicNames(events), expectedTopicNames('general chat')),
  },
  {
    capability: 'user_list_incomplete',
    observer: 'polonius',
    types: ['realm_user'],
    // Events carry avatar URLs, as Zulip's do.
    extra: () => ({ client_gravatar: false }),
    // Guests see only the people they share a channel or a conversation with.
    async setup(iago, on) {
      const groups = (await iago.get('/user_groups')).body.user_groups as { id: number; name: string }[];
      const group = groups.find((candidate) => candidate.name === (on ? 'role:members' : 'role:everyone'))!;
      assert.is((await iago.patch('/realm', { can_access_all_users_group: { new: group.id } })).status, 200);
    },
    // A newcomer, unseen until the default channels (Verona, the guest's, among them) take them in.
    async act({ iago }) {
      const email = `${fresh('seen').replace(' ', '')}@zulip.com`;
      assert.is((await iago.post('/users', { email, full_name: 'Seen Later', password: 'long enough' })).status, 200);
    },
    declared: (events) => assert.equal(events.map((event) => [event.op, (event.person as { full_name: string }).full_name]), [['add', 'Seen Later']]),
    undeclared: (events) =>
      assert.equal(
        events.map((event) => [event.op, (event.person as { full_name: string }).full_name]),
        [
          ['add', 'Unknown user'],
          ['add', 'Seen Later'],
        ],
      ),
  },
  {
    capability: 'stream_typing_notifications',
    observer: 'hamlet',
    types: ['typing'],
    async act({ iago }) {
      const id = Number((await iago.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
      assert.is((await iago.post('/typing', { type: 'stream', stream_id: id, topic: 'typing here', op: 'start' })).status, 200);
      assert.is((await iago.post('/typing', { type: 'direct', to: JSON.stringify([Number((await iago.get('/users/me')).body.user_id)]), op: 'start' })).status, 200);
    },
    declared: (events) => assert.equal(events.map((event) => event.message_type), ['stream']),
    undeclared: (events) => assert.equal(events, []),
  },
];

for (const row of rows) {
  capabilities(`${row.capability}: clients that declare it and clients that do not each get their events; register + events == a fresh register`, async ({ server }) => {
    const iago = await server.as('iago@zulip.com');
    const hamlet = await server.as('hamlet@zulip.com');
    const observer = row.observer === undefined ? iago : await server.as(`${row.observer}@zulip.com`);
    await row.setup?.(iago, true);
    // Today's client, and the same client but for this one capability.
    const kinds = [
      { declared: true, client_capabilities: { ...MODERN_CAPABILITIES, [row.capability]: true } },
      { declared: false, client_capabilities: { ...MODERN_CAPABILITIES, [row.capability]: false } },
    ];
    const queues = await Promise.all(kinds.map((kind) => register(observer, { fetch_event_types: row.types, event_types: row.types, include_subscribers: true, client_capabilities: kind.client_capabilities, ...row.extra?.(kind.declared) })));
    await row.act({ iago, hamlet, server });
    for (const [index, kind] of kinds.entries()) {
      const queue = queues[index]!;
      const events = ((await observer.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[]).filter((event) => event.type !== 'heartbeat');
      for (const event of events) assertEventMatchesReference(event, event.type === 'realm_user' ? { ...specUserFields, at: ['person'] } : {});
      (kind.declared ? row.declared : row.undeclared)(events);
      for (const event of events) applyEvent(queue.state, event);
      const again = await register(observer, { fetch_event_types: row.types, include_subscribers: true, client_capabilities: kind.client_capabilities, ...row.extra?.(kind.declared) });
      assert.equal(comparable(queue.state), comparable(again.state), `${row.capability} ${kind.declared ? 'declared' : 'undeclared'}`);
    }
    await row.setup?.(iago, false);
  });
}

capabilities('without archived_channels, register leaves archived channels out', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const name = fresh('archived');
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name }] });
  const id = Number((await iago.get('/get_stream_id', { stream: name })).body.stream_id);
  assert.is((await iago.delete(`/streams/${id}`)).status, 200);
  const ids = async (declared: boolean) => {
    const state = (await register(iago, { fetch_event_types: ['stream', 'subscription'], client_capabilities: declared ? { archived_channels: true } : {} })).state;
    return ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'].flatMap((list) => (state[list] as { stream_id: number }[]).map((channel) => channel.stream_id));
  };
  assert.ok((await ids(true)).includes(id));
  assert.not.ok((await ids(false)).includes(id));
});

capabilities("without notification_settings_null, a subscription's inherited notification settings are the user's global ones, not null", async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const settingsOf = async (declared: boolean) => {
    const state = (await register(cordelia, { fetch_event_types: ['subscription'], client_capabilities: declared ? { notification_settings_null: true } : {} })).state;
    const verona = (state.subscriptions as { name: string; desktop_notifications: boolean | null; push_notifications: boolean | null }[]).find((subscription) => subscription.name === 'Verona')!;
    return [verona.desktop_notifications, verona.push_notifications];
  };
  assert.equal(await settingsOf(true), [null, null]);
  assert.equal(await settingsOf(false), [false, false]);
  assert.is((await cordelia.patch('/settings', { enable_stream_desktop_notifications: true })).status, 200);
  assert.equal(await settingsOf(false), [true, false]);
  assert.equal(await settingsOf(true), [null, null]);
});

capabilities.run();
