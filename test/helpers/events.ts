// Client-side helpers for event tests: a long-poll reader, a WebSocket reader, and Zulip's
// apply_events — how a client keeps its register state current from events.
import { unpack } from 'msgpackr';
import WebSocket from 'ws';
import * as assert from 'uvu/assert';
import type { ApiClient } from './client.js';

export type Event = { id: number; type: string; op?: string; [field: string]: unknown };
export type State = Record<string, unknown>;

export interface Registered {
  queueId: string;
  state: State;
}

export async function register(client: ApiClient, params: Record<string, unknown> = {}): Promise<Registered> {
  const response = await client.post('/register', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return { queueId: String(response.body.queue_id), state: response.body };
}

/** Long-polls until at least `count` events after `lastEventId` have arrived (bounded by time). */
export async function pollEvents(client: ApiClient, queueId: string, count: number, lastEventId = -1, timeoutMs = 5000): Promise<Event[]> {
  const events: Event[] = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    if (Date.now() > deadline) assert.unreachable(`expected ${count} events, got ${events.length}: ${JSON.stringify(events)}`);
    const response = await client.get('/events', { queue_id: queueId, last_event_id: events.at(-1)?.id ?? lastEventId });
    assert.is(response.status, 200, JSON.stringify(response.body));
    events.push(...(response.body.events as Event[]).filter((event) => event.type !== 'heartbeat'));
  }
  return events;
}

/** A WebSocket client of the event stream that records every frame it receives. */
export class StreamClient {
  readonly frames: Record<string, unknown>[] = [];
  closed: { code: number; reason: string } | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.frames.push(isBinary ? (unpack(data) as Record<string, unknown>) : (JSON.parse(data.toString()) as Record<string, unknown>));
      this.wake();
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve(new StreamClient(socket)));
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
      socket.once('error', reject);
    });
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  events(): Event[] {
    return this.frames.filter((frame) => !('control' in frame)) as Event[];
  }

  /** Waits (bounded) until the predicate holds over what has been received. */
  async until(predicate: (client: StreamClient) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) assert.unreachable(`condition not met; frames: ${JSON.stringify(this.frames)} closed: ${JSON.stringify(this.closed)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

type Unread = { unread_message_ids: number[]; [field: string]: unknown };

type Channel = { stream_id: number; subscriber_count: number; subscribers?: number[]; [field: string]: unknown };

const channelLists = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'] as const;

function eachChannel(state: State, streamId: number, update: (channel: Channel) => void): void {
  for (const list of channelLists) for (const channel of (state[list] as Channel[] | undefined) ?? []) if (channel.stream_id === streamId) update(channel);
}

/** A direct message moves its conversation to the top of recent_private_conversations. */
function noteRecentConversation(state: State, messageId: number, participants: number[]): void {
  if (!Array.isArray(state.recent_private_conversations)) return;
  const me = state.user_id as number;
  const others = participants.filter((id) => id !== me).sort((a, b) => a - b);
  const key = others.join(',');
  const rest = (state.recent_private_conversations as { user_ids: number[]; max_message_id: number }[]).filter((entry) => entry.user_ids.join(',') !== key);
  state.recent_private_conversations = [{ max_message_id: messageId, user_ids: others }, ...rest];
}

/** Zulip's apply_events for the event types Parley emits: what a client does with each event. */
export function applyEvent(state: State, event: Event): void {
  const { id: _id, ...payload } = event;
  switch (`${payload.type}/${payload.op ?? ''}`) {
    case 'realm_user/add':
      (state.realm_users as unknown[]).push(payload.person);
      return;
    case 'realm_user/update': {
      const person = payload.person as { user_id: number; is_active?: boolean };
      const active = state.realm_users as { user_id: number }[];
      const inactive = state.realm_non_active_users as { user_id: number }[];
      const user = [...active, ...inactive].find((candidate) => candidate.user_id === person.user_id)! as Record<string, unknown>;
      // The User object has no avatar_source or avatar_url_medium; the client keeps the rest.
      const { avatar_source: _source, avatar_url_medium: _medium, custom_profile_field: custom, ...fields } = person as Record<string, unknown>;
      const { new_email: newEmail, ...rest } = fields;
      Object.assign(user, rest, newEmail === undefined ? {} : { email: newEmail });
      // The user's own fields at the top level follow their own changes (Zulip's apply_event).
      if (person.user_id === state.user_id) {
        if (newEmail !== undefined) state.email = newEmail;
        if (typeof rest.full_name === 'string') state.full_name = rest.full_name;
      }
      if (custom) {
        const { id, ...value } = custom as { id: number; value: string | null };
        const data = user.profile_data as Record<string, unknown>;
        if (value.value === null) delete data[String(id)];
        else data[String(id)] = value;
      }
      // The User object's role flags follow the role.
      if (typeof fields.role === 'number') Object.assign(user, { is_owner: fields.role === 100, is_admin: fields.role <= 200, is_guest: fields.role === 600 });
      if (person.is_active === false) {
        state.realm_users = active.filter((candidate) => candidate !== user);
        inactive.push(user as { user_id: number });
      } else if (person.is_active === true) {
        state.realm_non_active_users = inactive.filter((candidate) => candidate !== user);
        active.push(user as { user_id: number });
      }
      return;
    }
    case 'stream/create':
      for (const channel of payload.streams as Channel[]) {
        (state.streams as Channel[] | undefined)?.push(channel);
        (state.never_subscribed as Channel[] | undefined)?.push({ ...channel, subscribers: [] });
      }
      return;
    case 'stream/update': {
      const extras = ['rendered_description', 'history_public_to_subscribers', 'is_web_public'].filter((field) => field in payload);
      eachChannel(state, payload.stream_id as number, (channel) => {
        channel[payload.property as string] = payload.value;
        for (const field of extras) channel[field] = payload[field];
      });
      return;
    }
    case 'channel_folder/add':
      (state.channel_folders as unknown[]).push(payload.channel_folder);
      return;
    case 'channel_folder/update': {
      const folder = (state.channel_folders as { id: number }[]).find((candidate) => candidate.id === payload.channel_folder_id)!;
      Object.assign(folder, payload.data);
      return;
    }
    case 'channel_folder/reorder': {
      const order = payload.order as number[];
      const list = state.channel_folders as { id: number; order: number }[];
      for (const folder of list) folder.order = order.indexOf(folder.id);
      list.sort((a, b) => a.order - b.order);
      return;
    }
    case 'default_streams/':
      state.realm_default_streams = payload.default_streams;
      return;
    case 'subscription/add':
      for (const subscription of payload.subscriptions as Channel[]) {
        for (const list of ['unsubscribed', 'never_subscribed'] as const) state[list] = (state[list] as Channel[]).filter((channel) => channel.stream_id !== subscription.stream_id);
        (state.subscriptions as Channel[]).push(subscription);
        eachChannel(state, subscription.stream_id, (channel) => (channel.subscriber_count = subscription.subscriber_count));
      }
      return;
    case 'subscription/remove': {
      const me = state.user_id as number;
      for (const { stream_id: streamId } of payload.subscriptions as { stream_id: number }[]) {
        const sub = (state.subscriptions as Channel[]).find((candidate) => candidate.stream_id === streamId)!;
        state.subscriptions = (state.subscriptions as Channel[]).filter((candidate) => candidate !== sub);
        if (sub.subscribers) sub.subscribers = sub.subscribers.filter((id) => id !== me);
        (state.unsubscribed as Channel[]).push(sub);
        eachChannel(state, streamId, (channel) => (channel.subscriber_count -= 1));
      }
      return;
    }
    case 'stream/delete':
      for (const streamId of payload.stream_ids as number[]) {
        for (const list of channelLists) if (Array.isArray(state[list])) state[list] = (state[list] as Channel[]).filter((channel) => channel.stream_id !== streamId);
      }
      return;
    case 'subscription/peer_add': {
      const added = payload.user_ids as number[];
      for (const streamId of payload.stream_ids as number[]) {
        eachChannel(state, streamId, (channel) => {
          if (channel.subscribers) channel.subscribers = [...channel.subscribers, ...added];
          channel.subscriber_count += added.length;
        });
      }
      return;
    }
    case 'subscription/peer_remove': {
      const removed = payload.user_ids as number[];
      for (const streamId of payload.stream_ids as number[]) {
        eachChannel(state, streamId, (channel) => {
          if (channel.subscribers) channel.subscribers = channel.subscribers.filter((id) => !removed.includes(id));
          channel.subscriber_count -= removed.length;
        });
      }
      return;
    }
    case 'user_group/add':
      (state.realm_user_groups as unknown[]).push(payload.group);
      return;
    case 'user_group/update': {
      const group = (state.realm_user_groups as { id: number }[]).find((candidate) => candidate.id === payload.group_id)!;
      Object.assign(group, payload.data);
      return;
    }
    case 'user_group/add_subgroups':
    case 'user_group/remove_subgroups': {
      const group = (state.realm_user_groups as { id: number; direct_subgroup_ids: number[] }[]).find((candidate) => candidate.id === payload.group_id)!;
      const ids = payload.direct_subgroup_ids as number[];
      group.direct_subgroup_ids = payload.op === 'add_subgroups' ? [...group.direct_subgroup_ids, ...ids] : group.direct_subgroup_ids.filter((id) => !ids.includes(id));
      return;
    }
    case 'user_group/add_members':
    case 'user_group/remove_members': {
      const group = (state.realm_user_groups as { id: number; members: number[] }[]).find((candidate) => candidate.id === payload.group_id)!;
      const ids = payload.user_ids as number[];
      group.members = payload.op === 'add_members' ? [...group.members, ...ids] : group.members.filter((id) => !ids.includes(id));
      return;
    }
    case 'message/': {
      const message = payload.message as { id: number; type: string; stream_id?: number; subject: string; sender_id: number; display_recipient: unknown };
      state.max_message_id = Math.max(state.max_message_id as number, message.id);
      if (message.type === 'private') noteRecentConversation(state, message.id, (message.display_recipient as { id: number }[]).map((user) => user.id));
      const flags = payload.flags as string[];
      if (flags.includes('read')) return;
      const me = state.user_id as number;
      const conversation =
        message.type === 'stream'
          ? { stream_id: message.stream_id!, topic: message.subject }
          : { others: (message.display_recipient as { id: number }[]).map((user) => user.id).filter((id) => id !== me) };
      addUnread(state, message.id, conversation, flags.some((flag) => flag.endsWith('mentioned')));
      return;
    }
    case 'user_status/': {
      const statuses = state.user_status as Record<string, Record<string, unknown>>;
      const { type: _type, user_id: userId, ...fields } = payload as Record<string, unknown>;
      const current = { ...statuses[String(userId)] };
      for (const [field, value] of Object.entries(fields)) {
        if (value === '' || value === false) delete current[field];
        else current[field] = value;
      }
      if (Object.keys(current).length === 0) delete statuses[String(userId)];
      else statuses[String(userId)] = current;
      return;
    }
    case 'subscription/update':
      for (const sub of state.subscriptions as Channel[]) if (sub.stream_id === payload.stream_id) sub[payload.property as string] = payload.value;
      return;
    case 'user_topic/': {
      const { type: _type, ...row } = payload as { type: string; stream_id: number; topic_name: string; visibility_policy: number };
      const others = (state.user_topics as typeof row[]).filter(
        (entry) => !(entry.stream_id === row.stream_id && entry.topic_name.toLowerCase() === row.topic_name.toLowerCase()),
      );
      state.user_topics = row.visibility_policy === 0 ? others : [...others, row];
      return;
    }
    case 'muted_topics/':
      state.muted_topics = payload.muted_topics;
      return;
    case 'user_settings/update':
      if (state.user_settings) (state.user_settings as Record<string, unknown>)[payload.property as string] = payload.value;
      // A client without user_settings_object also keeps settings at the top level.
      if ((payload.property as string) in state) state[payload.property as string] = payload.value;
      return;
    case 'update_display_settings/':
      if (payload.setting_name as string in state) state[payload.setting_name as string] = payload.setting;
      return;
    case 'update_global_notifications/':
      if (payload.notification_name as string in state) state[payload.notification_name as string] = payload.setting;
      return;
    case 'realm_bot/add':
      (state.realm_bots as unknown[]).push(payload.bot);
      return;
    case 'realm_bot/remove':
    case 'realm_bot/update': {
      const changed = payload.bot as { user_id: number; full_name?: string };
      const bot = (state.realm_bots as { user_id: number }[]).find((candidate) => candidate.user_id === changed.user_id);
      if (bot) Object.assign(bot, payload.op === 'remove' ? { is_active: false } : changed);
      return;
    }
    case 'update_message_flags/add':
    case 'update_message_flags/remove': {
      if (payload.flag === 'starred' && Array.isArray(state.starred_messages)) {
        const ids = payload.messages as number[];
        const kept = (state.starred_messages as number[]).filter((id) => !ids.includes(id));
        state.starred_messages = payload.op === 'add' ? [...kept, ...ids].sort((a, b) => a - b) : kept;
      }
      if (payload.flag !== 'read') return;
      const ids = payload.messages as number[];
      if (payload.op === 'add') {
        removeUnread(state, ids);
        return;
      }
      const details = payload.message_details as Record<string, { type: string; stream_id?: number; topic?: string; user_ids?: number[]; mentioned?: boolean }>;
      for (const id of ids) {
        const detail = details[String(id)]!;
        const conversation = detail.type === 'stream' ? { stream_id: detail.stream_id!, topic: detail.topic! } : { others: detail.user_ids! };
        addUnread(state, id, conversation, detail.mentioned === true);
      }
      return;
    }
    case 'update_message/': {
      // Unread counts follow moved messages and changed mentions (Zulip's apply_events).
      const unread = state.unread_msgs as { mentions: number[]; streams: Unread[] } | undefined;
      if (!unread) return;
      const ids = payload.message_ids as number[];
      const flags = payload.flags as string[];
      if (flags.some((flag) => flag.endsWith('mentioned')) && !flags.includes('read')) {
        if (!unread.mentions.includes(payload.message_id as number)) unread.mentions.push(payload.message_id as number);
      }
      if (payload.subject !== undefined) {
        const channel = (payload.new_stream_id ?? payload.stream_id) as number;
        const moving = unread.streams.flatMap((entry) => entry.unread_message_ids).filter((id) => ids.includes(id));
        for (const entry of unread.streams) entry.unread_message_ids = entry.unread_message_ids.filter((id) => !ids.includes(id));
        unread.streams = unread.streams.filter((entry) => entry.unread_message_ids.length > 0);
        if (moving.length > 0) {
          const entry = unread.streams.find((candidate) => candidate.stream_id === channel && candidate.topic === payload.subject);
          if (entry) entry.unread_message_ids = [...entry.unread_message_ids, ...moving].sort((a, b) => a - b);
          else unread.streams.push({ stream_id: channel, topic: payload.subject, unread_message_ids: moving });
        }
      }
      return;
    }
    case 'delete_message/': {
      // The unread state forgets deleted messages (Zulip's apply_events).
      removeUnread(state, payload.message_ids as number[]);
      return;
    }
    case 'realm_linkifiers/':
      state.realm_linkifiers = payload.realm_linkifiers;
      return;
    case 'drafts/add':
      (state.drafts as unknown[]).push(...(payload.drafts as unknown[]));
      return;
    case 'drafts/update': {
      const draft = payload.draft as { id: number };
      state.drafts = (state.drafts as { id: number }[]).map((existing) => (existing.id === draft.id ? draft : existing));
      return;
    }
    case 'drafts/remove':
      state.drafts = (state.drafts as { id: number }[]).filter((existing) => existing.id !== payload.draft_id);
      return;
    case 'scheduled_messages/add':
      state.scheduled_messages = [...(state.scheduled_messages as ScheduledMessage[]), ...(payload.scheduled_messages as ScheduledMessage[])].sort(byDeliveryTime);
      return;
    case 'scheduled_messages/update': {
      const updated = payload.scheduled_message as ScheduledMessage;
      state.scheduled_messages = (state.scheduled_messages as ScheduledMessage[])
        .map((existing) => (existing.scheduled_message_id === updated.scheduled_message_id ? updated : existing))
        .sort(byDeliveryTime);
      return;
    }
    case 'scheduled_messages/remove':
      state.scheduled_messages = (state.scheduled_messages as ScheduledMessage[]).filter((existing) => existing.scheduled_message_id !== payload.scheduled_message_id);
      return;
    case 'has_provider_token/':
      state.has_provider_token = payload.value;
      state.has_zoom_token = payload.value;
      return;
    case 'push_device/':
      (state.push_devices as Record<string, unknown>)[payload.push_account_id as string] = { status: payload.status, error_code: payload.error_code ?? null };
      return;
    case 'alert_words/':
      state.alert_words = payload.alert_words;
      return;
    case 'custom_profile_fields/':
      state.custom_profile_fields = payload.fields;
      return;
    case 'heartbeat/':
      return;
    default:
      assert.unreachable(`no apply_events rule for ${payload.type}/${payload.op ?? ''}`);
  }
}

type ScheduledMessage = { scheduled_message_id: number; scheduled_delivery_timestamp: number };
const byDeliveryTime = (a: ScheduledMessage, b: ScheduledMessage): number => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id;

type Conversation = { stream_id: number; topic: string } | { others: number[] };

/** Adds a message to register's unread state, in its conversation's group (Zulip's unread_msgs). */
function addUnread(state: State, id: number, conversation: Conversation, mentioned: boolean): void {
  const unread = state.unread_msgs as { count: number; mentions: number[]; streams: Unread[]; pms: Unread[]; huddles: Unread[] };
  unread.count++;
  if (mentioned) unread.mentions.push(id);
  const into = (list: Unread[], match: (entry: Unread) => boolean, make: () => Unread) => {
    const entry = list.find(match) ?? list[list.push(make()) - 1]!;
    entry.unread_message_ids = [...entry.unread_message_ids, id].sort((a, b) => a - b);
  };
  const me = state.user_id as number;
  if ('stream_id' in conversation) {
    into(unread.streams, (entry) => entry.stream_id === conversation.stream_id && entry.topic === conversation.topic, () => ({ ...conversation, unread_message_ids: [] }));
  } else if (conversation.others.length <= 1) {
    const other = conversation.others[0] ?? me;
    into(unread.pms, (entry) => entry.other_user_id === other, () => ({ other_user_id: other, sender_id: other, unread_message_ids: [] }));
  } else {
    const key = [...conversation.others, me].sort((a, b) => a - b).join(',');
    into(unread.huddles, (entry) => entry.user_ids_string === key, () => ({ user_ids_string: key, unread_message_ids: [] }));
  }
}

/** Takes messages out of register's unread state (read, or deleted). */
function removeUnread(state: State, ids: readonly number[]): void {
  const unread = state.unread_msgs as { count: number; mentions: number[]; streams: Unread[]; pms: Unread[]; huddles: Unread[] } | undefined;
  if (!unread) return;
  const known = [...unread.streams, ...unread.pms, ...unread.huddles].flatMap((entry) => entry.unread_message_ids).filter((id) => ids.includes(id));
  unread.count -= known.length;
  unread.mentions = unread.mentions.filter((id) => !ids.includes(id));
  for (const list of ['streams', 'pms', 'huddles'] as const) {
    for (const entry of unread[list]) entry.unread_message_ids = entry.unread_message_ids.filter((id) => !ids.includes(id));
    unread[list] = unread[list].filter((entry) => entry.unread_message_ids.length > 0);
  }
}

const byStreamId = (a: Channel, b: Channel): number => a.stream_id - b.stream_id;

const byUserId = (a: { user_id: number }, b: { user_id: number }): number => a.user_id - b.user_id;

/** Register state without what differs between two registers by design; lists whose order
 * carries no meaning sorted. */
export function comparable(state: State): State {
  // server_timestamp is when the state was read, not state (Zulip's own test drops it too).
  const { queue_id: _queue, last_event_id: _last, server_timestamp: _read, ...rest } = state;
  for (const list of channelLists) if (Array.isArray(rest[list])) rest[list] = [...(rest[list] as Channel[])].sort(byStreamId);
  for (const list of ['realm_users', 'realm_non_active_users']) if (Array.isArray(rest[list])) rest[list] = [...(rest[list] as { user_id: number }[])].sort(byUserId);
  if (rest.unread_msgs) {
    const unread = rest.unread_msgs as Record<string, unknown>;
    const byFirst = (a: Unread, b: Unread): number => (a.unread_message_ids[0] ?? 0) - (b.unread_message_ids[0] ?? 0);
    rest.unread_msgs = {
      ...unread,
      mentions: [...(unread.mentions as number[])].sort((a, b) => a - b),
      ...Object.fromEntries(['streams', 'pms', 'huddles'].map((list) => [list, [...(unread[list] as Unread[])].sort(byFirst)])),
    };
  }
  if (Array.isArray(rest.realm_user_groups)) {
    rest.realm_user_groups = (rest.realm_user_groups as { members: number[] }[]).map((group) => ({ ...group, members: [...group.members].sort((a, b) => a - b) }));
  }
  return rest;
}
