// The things a generated request may name: a realm furnished with one of everything the API
// addresses by ID (channels public and private, messages in channels and direct, a group, a
// folder, a profile field, a linkifier, a draft, a scheduled message, a bot), the same in the
// other realm, and every ID and name found in what the realms' users see.
import * as assert from 'uvu/assert';
import type { ApiClient, Params } from './client.js';
import type { Cast } from './cast.js';

export interface Targets {
  /** IDs of the default realm's things. */
  ids: number[];
  /** IDs of the other realm's things. */
  foreignIds: number[];
  /** Names that exist (channels, topics, e-mail addresses) and the API's words. */
  names: string[];
}

/** The API's words that free-text parameters take, by parameter name (a fuzzer's dictionary): a
 * generated request must say "search" or "starred" to reach the code behind them. */
export const vocabulary: Record<string, readonly string[]> = {
  operator: ['channel', 'stream', 'topic', 'subject', 'sender', 'dm', 'pm-with', 'dm-including', 'group-pm-with', 'is', 'id', 'search', 'channels', 'streams', 'has', 'near', 'with'],
  operand: ['dm', 'private', 'unread', 'starred', 'mentioned', 'alerted', 'resolved', 'followed', 'public', 'web-public'],
  flag: ['read', 'starred', 'collapsed', 'mentioned', 'wildcard_mentioned', 'has_alert_word', 'historical'],
  property: ['color', 'is_muted', 'in_home_view', 'pin_to_top', 'desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify'],
  op: ['add', 'remove'],
  anchor: ['newest', 'oldest', 'first_unread'],
  propagate_mode: ['change_one', 'change_later', 'change_all'],
};

async function ok(client: ApiClient, method: string, path: string, params: Params): Promise<Record<string, unknown>> {
  const response = await client.call(method, path, params);
  assert.is(response.status, 200, `${method} ${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

const channelMessage = (to: string, topic: string) => ({ type: 'stream', to, topic, content: `About ${topic}` });

/** Gives the realm of `admin` one of each thing and a few messages. */
async function furnish(admin: ApiClient, adminId: number, memberId: number): Promise<void> {
  await ok(admin, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'fuzz private', description: 'Kept' }], invite_only: true, principals: [adminId, memberId] });
  await ok(admin, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'fuzz public' }] });
  await ok(admin, 'POST', '/messages', channelMessage('fuzz private', 'secret'));
  await ok(admin, 'POST', '/messages', channelMessage('fuzz public', 'open'));
  await ok(admin, 'POST', '/messages', { type: 'direct', to: [memberId], content: 'A direct word' });
  await ok(admin, 'POST', '/user_groups/create', { name: 'fuzzers', description: 'A group', members: [memberId] });
  await ok(admin, 'POST', '/channel_folders/create', { name: 'Fuzz folder' });
  await ok(admin, 'POST', '/realm/profile_fields', { name: 'Fuzz field', field_type: 1 });
  await ok(admin, 'POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' });
  await ok(admin, 'POST', '/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'Unsent' }] });
  const { stream_id: publicId } = await ok(admin, 'GET', '/get_stream_id', { stream: 'fuzz public' });
  await ok(admin, 'POST', '/scheduled_messages', { ...channelMessage('fuzz public', 'later'), to: publicId, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 * 365 });
}

/** Every integer of a JSON value held under a key the pattern matches (in a list there too). */
export function numbersUnder(value: unknown, keys: RegExp, key = ''): number[] {
  if (Number.isInteger(value)) return keys.test(key) ? [value as number] : [];
  if (Array.isArray(value)) return value.flatMap((item) => numbersUnder(item, keys, key));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([name, item]) => numbersUnder(item, keys, name));
  return [];
}

/** Every integer held under a key that names an ID (`id`, `stream_id`, `user_ids`…). */
const idsIn = (value: unknown): number[] => numbersUnder(value, /(^|_)ids?$/);

async function seen(client: ApiClient): Promise<unknown[]> {
  const state = await ok(client, 'POST', '/register', {});
  await ok(client, 'DELETE', '/events', { queue_id: state.queue_id });
  const messages = await ok(client, 'GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false });
  return [state, messages];
}

export async function gatherTargets(cast: Cast): Promise<Targets> {
  const { administrator, member } = cast.users;
  await furnish(administrator, cast.ids.administrator, cast.ids.member);
  const stranger = cast.elsewhere.owner;
  await ok(stranger, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'foreign' }] });
  await ok(stranger, 'POST', '/messages', channelMessage('foreign', 'abroad'));
  const ids = [...new Set(idsIn([...(await seen(administrator)), ...(await seen(member))]))];
  const names = ['fuzz private', 'fuzz public', 'secret', 'Verona', 'core team', 'hamlet@zulip.com', 'iago@zulip.com', 'foreign', `owner@elsewhere.test`, ...Object.values(vocabulary).flat()];
  return { ids, foreignIds: [...new Set(idsIn(await seen(stranger)))], names };
}
