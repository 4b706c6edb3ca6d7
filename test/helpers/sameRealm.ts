// Comparing two realms through the API when their IDs differ (an exported realm and its import):
// each answer is rewritten with IDs replaced by what names them on both sides (users by e-mail,
// channels and groups by name, messages by their place in the realm's history, profile fields by
// name), so that equal realms give equal answers.
import type { ApiClient } from './client.js';

export interface Names {
  users: Map<number, string>;
  channels: Map<number, string>;
  groups: Map<number, string>;
  messages: Map<number, string>;
  fields: Map<number, string>;
}

type Json = unknown;

const userKeys = new Set(['user_id', 'sender_id', 'bot_owner_id', 'creator_id', 'other_user_id']);
const userListKeys = new Set(['members', 'subscribers', 'direct_members', 'user_ids']);
const groupListKeys = new Set(['direct_subgroup_ids', 'direct_subgroups', 'subgroups']);
const messageKeys = new Set(['first_message_id', 'message_id', 'max_message_id']);
/** What differs between two realms by nature: the realm's own address and recipient IDs. */
const dropped = new Set(['recipient_id', 'sender_realm_str', 'realm_id', 'realm_uri', 'realm_url', 'realm_icon_url', 'stream_weekly_traffic', 'anchor']);
/** Host names in text name the realm by its subdomain. */
const sameHost = (text: string): string => text.replace(/\b(?:acme|moved)\.localhost\b/g, 'realm.localhost');

const named = (map: Map<number, string>, id: number): string => map.get(id) ?? `unknown ${id}`;

/** The answer with every ID it holds replaced by its name (`id` keys by `idKind`). */
export function rename(value: Json, names: Names, idKind?: keyof Names): Json {
  if (Array.isArray(value)) return value.map((item) => rename(item, names, idKind));
  if (typeof value === 'string') return sameHost(value);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value)) {
    if (dropped.has(key)) continue;
    if (key === 'id' && idKind && typeof item === 'number') out[key] = named(names[idKind], item);
    else if (/(^|_)(stream|channel)_id$/.test(key) && typeof item === 'number' && item !== -1) out[key] = named(names.channels, item);
    else if (userKeys.has(key) && typeof item === 'number') out[key] = named(names.users, item);
    else if (messageKeys.has(key) && typeof item === 'number') out[key] = names.messages.get(item) ?? item;
    else if (/_group$/.test(key) && typeof item === 'number') out[key] = named(names.groups, item);
    else if (userListKeys.has(key) && Array.isArray(item)) out[key] = (item as number[]).map((id) => named(names.users, id)).sort();
    else if (groupListKeys.has(key) && Array.isArray(item)) out[key] = (item as number[]).map((id) => named(names.groups, id)).sort();
    else if (key === 'profile_data' && typeof item === 'object' && item !== null) out[key] = Object.fromEntries(Object.entries(item).map(([field, data]) => [named(names.fields, Number(field)), data]));
    else if (key === 'user_status' && typeof item === 'object' && item !== null) out[key] = Object.fromEntries(Object.entries(item).map(([user, status]) => [named(names.users, Number(user)), status]));
    else if (key === 'muted_users' && Array.isArray(item)) out[key] = rename(item, names, 'users');
    else if (key === 'display_recipient' && Array.isArray(item)) out[key] = rename(item, names, 'users');
    else if (key === 'reactions' && Array.isArray(item)) out[key] = (item as Record<string, Json>[]).map(({ user, ...reaction }) => rename(reaction, names));
    // A submessage's own ID is the server's sequence: its place in the list names it.
    else if (key === 'submessages' && Array.isArray(item)) out[key] = (item as Record<string, Json>[]).map(({ id, ...submessage }) => rename(submessage, names));
    else out[key] = rename(item, names);
  }
  return out;
}

/** A realm's names for its IDs, read through the API by an owner; messages are named by their
 * place among every message some reader sees. */
export async function namesOf(owner: ApiClient, readers: ApiClient[], emailOf: (email: string) => string): Promise<Names> {
  const users = (await owner.get('/users')).body.members as { user_id: number; delivery_email: string | null; email: string }[];
  const channels = (await owner.get('/streams', { include_all: true })).body.streams as { stream_id: number; name: string }[];
  const groups = (await owner.get('/user_groups')).body.user_groups as { id: number; name: string }[];
  const fields = (await owner.get('/realm/profile_fields')).body.custom_fields as { id: number; name: string }[];
  const seen = new Set<number>();
  for (const reader of readers) {
    for (const message of (await reader.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: [] })).body.messages as { id: number }[]) seen.add(message.id);
  }
  const messages = [...seen].sort((a, b) => a - b);
  return {
    users: new Map(users.map((user) => [user.user_id, emailOf(user.delivery_email ?? user.email)])),
    channels: new Map(channels.map((channel) => [channel.stream_id, channel.name])),
    groups: new Map(groups.map((group) => [group.id, group.name])),
    fields: new Map(fields.map((field) => [field.id, field.name])),
    messages: new Map(messages.map((id, index) => [id, `message ${index}`])),
  };
}
