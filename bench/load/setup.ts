// Setup through the public API, on a server the tool did not start: with an administrator's key it
// creates (or reuses, by name prefix) the users and channels of a run, subscribes them, and gets
// each user's API key (the development key fetch where the server allows it, else
// `POST /fetch_api_key` with the password it set). `cleanup` deactivates the users and archives the
// channels it made.
import { createHash } from 'node:crypto';
import { Api, type Account } from './api.js';
import { pool } from '../lib/stats.js';
import type { Scenario } from './scenario.js';

export interface LoadUser extends Account {
  userId: number;
}

export interface LoadChannel {
  name: string;
  id: number;
  /** Indices (into the cast's users) of its subscribers. */
  members: number[];
}

export interface Cast {
  users: LoadUser[];
  channels: LoadChannel[];
  server: { zulip_version: string; zulip_feature_level: number };
}

export interface SetupOptions {
  target: string;
  admin: Account;
  prefix: string;
  users: number;
  scenario: Scenario;
}

const CONCURRENCY = 8;

/** Channel indices user `index` is subscribed to. */
export function channelsOf(index: number, scenario: Scenario): number[] {
  const count = Math.min(scenario.subscriptions_per_user ?? scenario.channels, scenario.channels);
  return Array.from({ length: count }, (_, k) => (index + k) % scenario.channels);
}

/** The password the tool gives its users: derived from the administrator's key and the prefix, so a
 * later run reuses the same users without storing anything. */
const passwordFor = (options: SetupOptions, email: string): string => createHash('sha256').update(`${options.admin.apiKey}:${email}`).digest('base64url').slice(0, 24);

export async function serverVersion(target: string): Promise<Cast['server']> {
  const body = await new Api(target).ok('GET', '/server_settings');
  return { zulip_version: String(body.zulip_version ?? 'unknown'), zulip_feature_level: Number(body.zulip_feature_level ?? 0) };
}

async function apiKeyOf(api: Api, email: string, password: string): Promise<string> {
  const dev = await api.call('POST', '/dev_fetch_api_key', { username: email });
  if (dev.status === 200 && typeof dev.body.api_key === 'string') return dev.body.api_key;
  const body = await api.ok('POST', '/fetch_api_key', { username: email, password });
  return String(body.api_key);
}

export async function setUp(options: SetupOptions): Promise<Cast> {
  const anonymous = new Api(options.target);
  const admin = anonymous.as(options.admin);
  const server = await serverVersion(options.target);
  const domain = options.admin.email.split('@')[1] ?? 'example.com';
  const existing = new Map<string, { user_id: number; is_active: boolean }>();
  for (const member of ((await admin.ok('GET', '/users')).members as { email: string; delivery_email?: string; user_id: number; is_active: boolean }[]) ?? []) {
    existing.set((member.delivery_email ?? member.email).toLowerCase(), member);
  }
  const emails = Array.from({ length: options.users }, (_, i) => `${options.prefix}-${i}@${domain}`.toLowerCase());
  const users = await pool(emails, CONCURRENCY, async (email, i): Promise<LoadUser> => {
    const password = passwordFor(options, email);
    let userId = existing.get(email)?.user_id;
    if (userId === undefined) userId = Number((await admin.ok('POST', '/users', { email, password, full_name: `${options.prefix} user ${i}` })).user_id);
    else if (existing.get(email)?.is_active === false) await admin.ok('POST', `/users/${userId}/reactivate`);
    return { email, userId, apiKey: await apiKeyOf(anonymous, email, password) };
  });
  // Channels of an earlier run that --cleanup archived are brought back rather than renamed.
  const archived = new Map<string, number>();
  const listed = await admin.ok('GET', '/streams', { include_all: true, exclude_archived: false });
  for (const stream of (listed.streams as { name: string; stream_id: number; is_archived?: boolean }[]) ?? []) if (stream.is_archived) archived.set(stream.name, stream.stream_id);
  const channels: LoadChannel[] = [];
  for (let c = 0; c < options.scenario.channels; c++) {
    const name = `${options.prefix}-${c}`;
    const old = archived.get(name);
    if (old !== undefined) await admin.ok('PATCH', `/streams/${old}`, { is_archived: false });
    const members = users.flatMap((_, i) => (channelsOf(i, options.scenario).includes(c) ? [i] : []));
    // Subscribing only the members (principals) creates the channel when it is new.
    for (let from = 0; from < members.length; from += 100) {
      await admin.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name, description: 'Made by the load tool' }], principals: members.slice(from, from + 100).map((i) => users[i]!.userId) });
    }
    const id = Number((await admin.ok('GET', '/get_stream_id', { stream: name })).stream_id);
    channels.push({ name, id, members });
  }
  return { users, channels, server };
}

/** Deactivates the users and archives the channels of a run. */
export async function cleanUp(options: SetupOptions, cast: Cast): Promise<void> {
  const admin = new Api(options.target, options.admin);
  await pool(cast.users, CONCURRENCY, (user) => admin.ok('DELETE', `/users/${user.userId}`));
  for (const channel of cast.channels) await admin.ok('DELETE', `/streams/${channel.id}`);
}
