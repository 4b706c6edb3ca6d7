// Zulip's apply_events, as a client keeps its register state current: one rule per event kind of
// the server's catalogue (src/events/catalogue.ts), switched over the typed union, and the
// normalisation that makes two registers comparable.
import * as assert from 'uvu/assert';
import type { ChannelView, folderView, subscriptionView } from '../../src/channels/view.js';
import type { MessageDetails, ZulipEvent } from '../../src/events/catalogue.js';
import type { groupView } from '../../src/groups/view.js';
import type { draftView, reminderView, scheduledMessageView } from '../../src/messages/objects.js';
import type { savedSnippetView } from '../../src/messages/savedSnippets.js';
import type { navigationViewView } from '../../src/users/navigationViews.js';
import type { SettingValue } from '../../src/users/settings.js';
import { inaccessibleUserView, type botView, type UserView } from '../../src/users/view.js';

type Unread = { unread_message_ids: number[]; stream_id?: number; topic?: string; other_user_id?: number; sender_id?: number; user_ids_string?: string };
interface UnreadState {
  count: number;
  mentions: number[];
  streams: Unread[];
  pms: Unread[];
  huddles: Unread[];
  old_unreads_missing: boolean;
}
type Channel = ChannelView & Partial<ReturnType<typeof subscriptionView>> & { subscribers?: readonly number[] };
type Draft = ReturnType<typeof draftView>;
type SavedSnippet = ReturnType<typeof savedSnippetView>;
type NavigationView = ReturnType<typeof navigationViewView>;
type Scheduled = ReturnType<typeof scheduledMessageView>;
type Reminder = ReturnType<typeof reminderView>;
type Group = ReturnType<typeof groupView>;
type Bot = ReturnType<typeof botView>;
type UserTopic = { stream_id: number; topic_name: string; last_updated: number; visibility_policy: number };

/** The parts of register's answer that events change (the rest, settings keys included, by name). */
export interface State {
  user_id?: number;
  email?: string;
  full_name?: string;
  realm_users?: UserView[];
  realm_non_active_users?: UserView[];
  streams?: Channel[];
  subscriptions?: Channel[];
  unsubscribed?: Channel[];
  never_subscribed?: Channel[];
  channel_folders?: ReturnType<typeof folderView>[];
  realm_default_streams?: number[];
  realm_user_groups?: Group[];
  max_message_id?: number;
  unread_msgs?: UnreadState;
  user_status?: Record<string, Record<string, unknown>>;
  user_topics?: UserTopic[];
  user_settings?: Record<string, SettingValue | unknown>;
  realm_user_settings_defaults?: Record<string, SettingValue>;
  realm_bots?: (Bot | Partial<Bot>)[];
  starred_messages?: number[];
  recent_private_conversations?: { max_message_id: number; user_ids: number[] }[];
  drafts?: Draft[];
  saved_snippets?: SavedSnippet[];
  navigation_views?: NavigationView[];
  scheduled_messages?: Scheduled[];
  reminders?: Reminder[];
  push_devices?: Record<string, unknown>;
  presences?: Record<string, unknown>;
  [key: string]: unknown;
}

const channelLists = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'] as const;

function eachChannel(state: State, streamId: number, update: (channel: Channel) => void): void {
  for (const list of channelLists) for (const channel of state[list] ?? []) if (channel.stream_id === streamId) update(channel);
}

/** A direct message moves its conversation to the top of recent_private_conversations. */
function noteRecentConversation(state: State, messageId: number, participants: number[]): void {
  if (!state.recent_private_conversations) return;
  const others = participants.filter((id) => id !== state.user_id).sort((a, b) => a - b);
  const rest = state.recent_private_conversations.filter((entry) => entry.user_ids.join(',') !== others.join(','));
  state.recent_private_conversations = [{ max_message_id: messageId, user_ids: others }, ...rest];
}

function applyRealmUser(state: State, event: Extract<ZulipEvent, { type: 'realm_user' }>, options: ApplyOptions): void {
  const active = state.realm_users!;
  // A guest gaining sight of someone they listed as "Unknown user" gets them in its place.
  const at = (userId: number) => active.findIndex((candidate) => candidate.user_id === userId);
  if (event.op === 'add') {
    const index = at(event.person.user_id);
    return void (index < 0 ? active.push(event.person) : (active[index] = event.person));
  }
  if (event.op === 'remove') {
    // Losing sight of someone: the placeholder, or nothing for a client with user_list_incomplete.
    const placeholder = options.userListIncomplete ? [] : [inaccessibleUserView(event.person.user_id, options.fakeEmailDomain!)];
    active.splice(at(event.person.user_id), 1, ...placeholder);
    // Nor is the status of someone unseen kept.
    if (state.user_status) delete state.user_status[String(event.person.user_id)];
    return;
  }
  const { person } = event;
  const inactive = state.realm_non_active_users!;
  const user = [...active, ...inactive].find((candidate) => candidate.user_id === person.user_id)!;
  // The User object has no avatar_source or avatar_url_medium; the client keeps the rest.
  const { avatar_source: _source, avatar_url_medium: _medium, custom_profile_field: custom, new_email: newEmail, ...fields } = person;
  Object.assign(user, fields, newEmail === undefined ? {} : { email: newEmail });
  // Avatar events carry the URL; a client_gravatar client computes Gravatar URLs itself.
  if (options.clientGravatar && person.avatar_source === 'G' && person.user_id !== state.user_id) user.avatar_url = null;
  // The user's own fields at the top level follow their own changes (Zulip's apply_event).
  if (person.user_id === state.user_id) {
    if (newEmail !== undefined) state.email = newEmail;
    if (fields.full_name !== undefined) state.full_name = fields.full_name;
    if (person.avatar_url !== undefined) Object.assign(state, { avatar_source: person.avatar_source, avatar_url: person.avatar_url, avatar_url_medium: person.avatar_url_medium });
  }
  if (custom) {
    const { id, ...value } = custom;
    const data = user.profile_data!;
    if (value.value === null) delete data[String(id)];
    else data[String(id)] = { value: value.value, ...(value.rendered_value === undefined ? {} : { rendered_value: value.rendered_value }) };
  }
  // The User object's role flags follow the role.
  if (fields.role !== undefined) Object.assign(user, { is_owner: fields.role === 100, is_admin: fields.role <= 200, is_guest: fields.role === 600 });
  const moved = (from: UserView[], to: UserView[]) => {
    const found = from.find((candidate) => candidate.user_id === person.user_id)!;
    to.push(found);
    return from.filter((candidate) => candidate !== found);
  };
  if (person.is_active === false) state.realm_users = moved(active, inactive);
  else if (person.is_active === true) state.realm_non_active_users = moved(inactive, active);
}

function applyChannel(state: State, event: Extract<ZulipEvent, { type: 'stream' | 'subscription' }>): void {
  switch (event.op) {
    case 'create':
      for (const channel of event.streams) {
        state.streams?.push(channel);
        state.never_subscribed?.push({ ...channel, subscribers: [] });
      }
      return;
    case 'delete':
      for (const list of channelLists) state[list] = state[list]?.filter((channel) => !event.stream_ids.includes(channel.stream_id));
      return;
    case 'update':
      if (event.type === 'subscription') {
        for (const sub of state.subscriptions!) if (sub.stream_id === event.stream_id) Object.assign(sub, { [event.property]: event.value });
        return;
      }
      eachChannel(state, event.stream_id, (channel) => {
        const { type: _type, op: _op, stream_id: _id, name: _name, property, value, ...extras } = event;
        Object.assign(channel, { [property]: value }, extras);
      });
      return;
    case 'add':
      for (const subscription of event.subscriptions) {
        state.unsubscribed = state.unsubscribed!.filter((channel) => channel.stream_id !== subscription.stream_id);
        state.never_subscribed = state.never_subscribed!.filter((channel) => channel.stream_id !== subscription.stream_id);
        state.subscriptions!.push(subscription);
        eachChannel(state, subscription.stream_id, (channel) => (channel.subscriber_count = subscription.subscriber_count));
      }
      return;
    case 'remove':
      for (const { stream_id: streamId } of event.subscriptions) {
        const sub = state.subscriptions!.find((candidate) => candidate.stream_id === streamId)!;
        state.subscriptions = state.subscriptions!.filter((candidate) => candidate !== sub);
        if (sub.subscribers) sub.subscribers = sub.subscribers.filter((id) => id !== state.user_id);
        state.unsubscribed!.push(sub);
        eachChannel(state, streamId, (channel) => (channel.subscriber_count -= 1));
      }
      return;
    case 'peer_add':
    case 'peer_remove':
      for (const streamId of event.stream_ids) {
        eachChannel(state, streamId, (channel) => {
          const ids = event.user_ids;
          if (channel.subscribers) channel.subscribers = event.op === 'peer_add' ? [...channel.subscribers, ...ids] : channel.subscribers.filter((id) => !ids.includes(id));
          channel.subscriber_count += event.op === 'peer_add' ? ids.length : -ids.length;
        });
      }
  }
}

function applyGroup(state: State, event: Extract<ZulipEvent, { type: 'user_group' }>): void {
  if (event.op === 'add') return void state.realm_user_groups!.push(event.group);
  if (event.op === 'remove') return void (state.realm_user_groups = state.realm_user_groups!.filter((candidate) => candidate.id !== event.group_id));
  const group = state.realm_user_groups!.find((candidate) => candidate.id === event.group_id)!;
  switch (event.op) {
    case 'update':
      Object.assign(group, event.data);
      return;
    case 'add_subgroups':
    case 'remove_subgroups': {
      const ids = event.direct_subgroup_ids;
      group.direct_subgroup_ids = event.op === 'add_subgroups' ? [...group.direct_subgroup_ids, ...ids] : group.direct_subgroup_ids.filter((id) => !ids.includes(id));
      return;
    }
    case 'add_members':
    case 'remove_members': {
      const ids = event.user_ids;
      group.members = event.op === 'add_members' ? [...group.members, ...ids] : group.members.filter((id) => !ids.includes(id));
    }
  }
}

function applyFlags(state: State, event: Extract<ZulipEvent, { type: 'update_message_flags' }>): void {
  if (event.flag === 'starred' && state.starred_messages) {
    const kept = state.starred_messages.filter((id) => !event.messages.includes(id));
    state.starred_messages = event.op === 'add' ? [...kept, ...event.messages].sort((a, b) => a - b) : kept;
  }
  if (event.flag !== 'read') return;
  if (event.op === 'add') return removeUnread(state, event.messages);
  for (const id of event.messages) addUnread(state, id, event.message_details![String(id)]!);
}

/** Unread counts follow moved messages and changed mentions (Zulip's apply_events). */
function applyEdit(state: State, event: Extract<ZulipEvent, { type: 'update_message' }>): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const ids = event.message_ids;
  if (event.flags.some((flag) => flag.endsWith('mentioned')) && !event.flags.includes('read') && !unread.mentions.includes(event.message_id)) unread.mentions.push(event.message_id);
  if (event.subject === undefined) return;
  const channel = event.new_stream_id ?? event.stream_id;
  const moving = unread.streams.flatMap((entry) => entry.unread_message_ids).filter((id) => ids.includes(id));
  for (const entry of unread.streams) entry.unread_message_ids = entry.unread_message_ids.filter((id) => !ids.includes(id));
  unread.streams = unread.streams.filter((entry) => entry.unread_message_ids.length > 0);
  if (moving.length === 0) return;
  const entry = unread.streams.find((candidate) => candidate.stream_id === channel && candidate.topic === event.subject);
  if (entry) entry.unread_message_ids = [...entry.unread_message_ids, ...moving].sort((a, b) => a - b);
  else unread.streams.push({ stream_id: channel!, topic: event.subject, unread_message_ids: moving });
}

function applyStatus(state: State, event: Extract<ZulipEvent, { type: 'user_status' }>): void {
  const statuses = state.user_status!;
  const { type: _type, user_id: userId, ...fields } = event;
  const current = { ...statuses[String(userId)] };
  for (const [field, value] of Object.entries(fields)) {
    if (value === '' || value === false) delete current[field];
    else current[field] = value;
  }
  if (Object.keys(current).length === 0) delete statuses[String(userId)];
  else statuses[String(userId)] = current;
}

const byDeliveryTime = (a: Scheduled, b: Scheduled): number => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id;

/** How the state was registered, where applying an event depends on it. */
export interface ApplyOptions {
  /** Registered with client_gravatar: Gravatar avatars are null in the user list. */
  clientGravatar?: boolean;
  /** Registered with the user_list_incomplete capability: users a guest cannot see are left out. */
  userListIncomplete?: boolean;
  /** The server's domain of dummy addresses, which placeholders ("Unknown user") carry. */
  fakeEmailDomain?: string;
}

/** Applies one event to a register state, as Zulip's clients do (Zulip's apply_event). */
export function applyEvent(state: State, wire: { id?: number; type: string }, options: ApplyOptions = {}): void {
  // The wire's JSON is the catalogue's event (the server sends nothing else) with its queue ID.
  const { id: _id, ...payload } = wire;
  const event = payload as ZulipEvent;
  switch (event.type) {
    case 'realm_user':
      return applyRealmUser(state, event, options);
    case 'stream':
    case 'subscription':
      return applyChannel(state, event);
    case 'user_group':
      return applyGroup(state, event);
    case 'channel_folder':
      if (event.op === 'add') state.channel_folders!.push(event.channel_folder);
      else if (event.op === 'update') Object.assign(state.channel_folders!.find((folder) => folder.id === event.channel_folder_id)!, event.data);
      else {
        for (const folder of state.channel_folders!) folder.order = event.order.indexOf(folder.id);
        state.channel_folders!.sort((a, b) => a.order - b.order);
      }
      return;
    case 'default_streams':
      state.realm_default_streams = event.default_streams;
      return;
    case 'message': {
      const { message, flags } = event;
      state.max_message_id = Math.max(state.max_message_id!, message.id);
      const participants = typeof message.display_recipient === 'string' ? [] : message.display_recipient.map((user) => user.id);
      if (message.type === 'private') noteRecentConversation(state, message.id, participants);
      if (flags.includes('read')) return;
      const mentioned = flags.some((flag) => flag.endsWith('mentioned')) ? { mentioned: true as const } : {};
      const details: MessageDetails =
        message.stream_id !== undefined
          ? { type: 'stream', stream_id: message.stream_id, topic: message.subject, ...mentioned }
          : { type: 'private', user_ids: participants.filter((id) => id !== state.user_id), ...mentioned };
      return addUnread(state, message.id, details);
    }
    case 'user_status':
      return applyStatus(state, event);
    case 'reaction':
    case 'submessage':
      // Register keeps no messages: reactions and submessages live in the message objects clients fetch.
      return;
    case 'muted_users':
      state.muted_users = event.muted_users;
      return;
    case 'user_topic': {
      const { type: _type, ...row } = event;
      const others = state.user_topics!.filter((entry) => !(entry.stream_id === row.stream_id && entry.topic_name.toLowerCase() === row.topic_name.toLowerCase()));
      state.user_topics = row.visibility_policy === 0 ? others : [...others, row];
      return;
    }
    case 'muted_topics':
      state.muted_topics = event.muted_topics;
      return;
    case 'user_settings':
      if (state.user_settings) state.user_settings[event.property] = event.value;
      // A client without user_settings_object also keeps settings at the top level.
      if (event.property in state) state[event.property] = event.value;
      return;
    case 'update_display_settings':
      if (event.setting_name in state) state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      if (event.notification_name in state) state[event.notification_name] = event.setting;
      return;
    case 'realm_bot': {
      if (event.op === 'add') return void state.realm_bots!.push(event.bot);
      if (event.op === 'delete') return void (state.realm_bots = state.realm_bots!.filter((candidate) => candidate.user_id !== event.bot.user_id));
      const bot = state.realm_bots!.find((candidate) => candidate.user_id === event.bot.user_id);
      if (bot) Object.assign(bot, event.op === 'remove' ? { is_active: false } : event.bot);
      return;
    }
    case 'update_message_flags':
      return applyFlags(state, event);
    case 'update_message':
      return applyEdit(state, event);
    case 'delete_message':
      return removeUnread(state, event.message_ids ?? [event.message_id]);
    case 'realm_linkifiers':
      state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'realm_playgrounds':
      state.realm_playgrounds = event.realm_playgrounds;
      return;
    // Exports and consents are no register state: clients ask GET /export/realm(/consents).
    case 'realm_export':
    case 'realm_export_consent':
      return;
    case 'drafts':
      if (event.op === 'add') state.drafts!.push(...event.drafts);
      else if (event.op === 'update') state.drafts = state.drafts!.map((existing) => (existing.id === event.draft.id ? event.draft : existing));
      else state.drafts = state.drafts!.filter((existing) => existing.id !== event.draft_id);
      return;
    case 'navigation_view':
      if (event.op === 'add') state.navigation_views!.push(event.navigation_view);
      else if (event.op === 'update') {
        const { fragment, data } = event;
        state.navigation_views = state.navigation_views!.map((view) => (view.fragment === fragment ? { ...view, ...data } : view));
      } else state.navigation_views = state.navigation_views!.filter((view) => view.fragment !== event.fragment);
      return;
    case 'saved_snippets':
      if (event.op === 'add') state.saved_snippets!.push(event.saved_snippet);
      else if (event.op === 'update') state.saved_snippets = state.saved_snippets!.map((existing) => (existing.id === event.saved_snippet.id ? event.saved_snippet : existing));
      else state.saved_snippets = state.saved_snippets!.filter((existing) => existing.id !== event.saved_snippet_id);
      return;
    case 'reminders':
      if (event.op === 'add') state.reminders = [...state.reminders!, ...event.reminders].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id);
      else state.reminders = state.reminders!.filter((existing) => existing.reminder_id !== event.reminder_id);
      return;
    case 'scheduled_messages':
      if (event.op === 'add') state.scheduled_messages = [...state.scheduled_messages!, ...event.scheduled_messages].sort(byDeliveryTime);
      else if (event.op === 'update') {
        const updated = event.scheduled_message;
        state.scheduled_messages = state.scheduled_messages!.map((existing) => (existing.scheduled_message_id === updated.scheduled_message_id ? updated : existing)).sort(byDeliveryTime);
      } else state.scheduled_messages = state.scheduled_messages!.filter((existing) => existing.scheduled_message_id !== event.scheduled_message_id);
      return;
    case 'has_provider_token':
      state.has_provider_token = event.value;
      state.has_zoom_token = event.value;
      return;
    case 'push_device':
      state.push_devices![event.push_account_id] = { status: event.status, error_code: event.error_code };
      return;
    case 'alert_words':
      state.alert_words = event.alert_words;
      return;
    case 'custom_profile_fields':
      state.custom_profile_fields = event.fields;
      return;
    case 'realm_emoji': {
      const table = state.realm_emoji as Record<string, { deactivated: boolean }>;
      if (event.op === 'update') state.realm_emoji = event.realm_emoji;
      else if (event.op === 'add') table[event.emoji.id] = event.emoji;
      else Object.assign(table[event.emoji_id]!, event.data);
      return;
    }
    case 'realm_user_settings_defaults':
      if (state.realm_user_settings_defaults) state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'realm':
      if (event.op === 'update') state[`realm_${event.property}`] = event.value;
      else for (const [name, value] of Object.entries(event.data)) state[`realm_${name}`] = value;
      return;
    case 'presence': {
      // The modern format (simplified_presence_events), as register's slim presences.
      if ('presences' in event) return void Object.assign(state.presences ?? {}, event.presences);
      // The legacy format (register without slim_presence): the event's one client is the aggregate.
      const { client, status, timestamp } = event.presence.website;
      if (state.presences) state.presences[event.email] = { aggregated: { client, status, timestamp }, website: event.presence.website };
      return;
    }
    case 'typing':
    case 'typing_edit_message':
    case 'heartbeat':
    case 'restart':
    // Register carries no attachments or invitations (clients fetch GET /attachments and
    // GET /invites): Zulip's apply_events passes these by too.
    case 'attachment':
    case 'invites_changed':
      return;
    default:
      assert.unreachable(`no apply_events rule for ${JSON.stringify(wire)}`);
  }
}

/** Adds a message to register's unread state, in its conversation's group (Zulip's unread_msgs). */
function addUnread(state: State, id: number, where: MessageDetails): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  unread.count++;
  if (where.mentioned) unread.mentions.push(id);
  const into = (list: Unread[], match: (entry: Unread) => boolean, make: () => Unread) => {
    const entry = list.find(match) ?? list[list.push(make()) - 1]!;
    entry.unread_message_ids = [...entry.unread_message_ids, id].sort((a, b) => a - b);
  };
  const me = state.user_id!;
  if (where.type === 'stream') {
    into(unread.streams, (entry) => entry.stream_id === where.stream_id && entry.topic === where.topic, () => ({ stream_id: where.stream_id!, topic: where.topic, unread_message_ids: [] }));
  } else if (where.user_ids.length <= 1) {
    const other = where.user_ids[0] ?? me;
    into(unread.pms, (entry) => entry.other_user_id === other, () => ({ other_user_id: other, sender_id: other, unread_message_ids: [] }));
  } else {
    const key = [...where.user_ids, me].sort((a, b) => a - b).join(',');
    into(unread.huddles, (entry) => entry.user_ids_string === key, () => ({ user_ids_string: key, unread_message_ids: [] }));
  }
}

/** Takes messages out of register's unread state (read, or deleted). */
function removeUnread(state: State, ids: readonly number[]): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  const known = [...unread.streams, ...unread.pms, ...unread.huddles].flatMap((entry) => entry.unread_message_ids).filter((id) => ids.includes(id));
  unread.count -= known.length;
  unread.mentions = unread.mentions.filter((id) => !ids.includes(id));
  for (const list of ['streams', 'pms', 'huddles'] as const) {
    for (const entry of unread[list]) entry.unread_message_ids = entry.unread_message_ids.filter((id) => !ids.includes(id));
    unread[list] = unread[list].filter((entry) => entry.unread_message_ids.length > 0);
  }
}

/** Register state without what differs between two registers by design; lists whose order
 * carries no meaning sorted. */
export function comparable(state: State): State {
  // server_timestamp is when the state was read, not state (Zulip's own test drops it too); events
  // do not carry presence_last_update_id, by Zulip's design.
  const { queue_id: _queue, last_event_id: _last, server_timestamp: _read, presence_last_update_id: _presence, ...rest }: State = state;
  const bySubscribers = (channel: Channel): Channel => (channel.subscribers ? { ...channel, subscribers: [...channel.subscribers].sort((a, b) => a - b) } : channel);
  for (const list of channelLists) rest[list] = rest[list] && [...rest[list]].sort((a, b) => a.stream_id - b.stream_id).map(bySubscribers);
  for (const list of ['realm_users', 'realm_non_active_users'] as const) rest[list] = rest[list] && [...rest[list]].sort((a, b) => a.user_id - b.user_id);
  if (rest.unread_msgs) {
    const byFirst = (a: Unread, b: Unread): number => (a.unread_message_ids[0] ?? 0) - (b.unread_message_ids[0] ?? 0);
    const unread = rest.unread_msgs;
    rest.unread_msgs = { ...unread, mentions: [...unread.mentions].sort((a, b) => a - b), streams: [...unread.streams].sort(byFirst), pms: [...unread.pms].sort(byFirst), huddles: [...unread.huddles].sort(byFirst) };
  }
  rest.realm_user_groups = rest.realm_user_groups?.map((group) => ({ ...group, members: [...group.members].sort((a, b) => a - b) }));
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}
