// Every kind of user a request can come from, on a test server (development mode, demo realm):
// the demo realm's owner, administrator, member and guest, plus a moderator, a bot, an
// incoming-webhook bot and a deactivated user made here, and the owner of a second realm, reached through its own host
// (a subdomain of the server's external host).
import * as assert from 'uvu/assert';
import type { RealmActor } from '../../src/realm/actor.js';
import { Role } from '../../src/users/records.js';
import type { ApiClient } from './client.js';
import type { TestServer } from './server.js';

export const castRoles = ['owner', 'administrator', 'moderator', 'member', 'guest', 'bot', 'webhook bot', 'deactivated'] as const;
export type CastRole = (typeof castRoles)[number];

/** The role each member of the cast has (a bot is a member; the deactivated user was one). */
export const roleOf: Record<CastRole, Role> = {
  owner: Role.owner,
  administrator: Role.administrator,
  moderator: Role.moderator,
  member: Role.member,
  guest: Role.guest,
  bot: Role.member,
  'webhook bot': Role.member,
  deactivated: Role.member,
};

export interface Cast {
  /** Clients of the default realm, by role. */
  users: Record<CastRole, ApiClient>;
  ids: Record<CastRole, number>;
  /** The other realm and its owner, a client of that realm's host. */
  elsewhere: { realm: RealmActor; owner: ApiClient; ownerId: number };
}

const ELSEWHERE = 'elsewhere';

/** The host that names a subdomain's realm on this server. */
export const hostOf = (server: TestServer, subdomain: string): string => `${subdomain}.${server.config.externalHost}`;

async function createUser(server: TestServer, realm: RealmActor, email: string, role: Role, host?: string): Promise<{ client: ApiClient; userId: number }> {
  const { userId, apiKey } = await realm.ask('users.create', null, { email, fullName: email.split('@')[0]!, role, passwordHash: null });
  return { client: server.client({ email, apiKey }, host), userId };
}

export async function assembleCast(server: TestServer): Promise<Cast> {
  const realm = server.parley.realms.forHost('');
  if (!realm) throw new Error('no default realm');
  const demo = { owner: 'desdemona@zulip.com', administrator: 'iago@zulip.com', member: 'hamlet@zulip.com', guest: 'polonius@zulip.com' } as const;
  const users = {} as Record<CastRole, ApiClient>;
  const ids = {} as Record<CastRole, number>;
  for (const [role, email] of Object.entries(demo) as [keyof typeof demo, string][]) {
    users[role] = await server.as(email);
    ids[role] = (await realm.ask('users.apiKey', null, { email })).userId;
  }
  const moderator = await createUser(server, realm, 'moderator@zulip.com', roleOf.moderator);
  [users.moderator, ids.moderator] = [moderator.client, moderator.userId];
  const deactivated = await createUser(server, realm, 'gone@zulip.com', roleOf.deactivated);
  [users.deactivated, ids.deactivated] = [deactivated.client, deactivated.userId];
  assert.is((await users.administrator.delete(`/users/${deactivated.userId}`)).status, 200);
  for (const [role, shortName, botType] of [['bot', 'cast', 1], ['webhook bot', 'cast-hook', 2]] as const) {
    const bot = await users.member.post('/bots', { full_name: `Cast ${shortName}`, short_name: shortName, bot_type: botType });
    assert.is(bot.status, 200, JSON.stringify(bot.body));
    ids[role] = Number(bot.body.user_id);
    const botEmail = String(((await users.member.get(`/users/${ids[role]}`)).body.user as { email: string }).email);
    users[role] = users.member.withCredentials({ email: botEmail, apiKey: String(bot.body.api_key) });
  }

  const elsewhere = await server.parley.realms.create({ subdomain: ELSEWHERE, name: 'Elsewhere' });
  const owner = await createUser(server, elsewhere, `owner@${ELSEWHERE}.test`, Role.owner, hostOf(server, ELSEWHERE));
  return { users, ids, elsewhere: { realm: elsewhere, owner: owner.client, ownerId: owner.userId } };
}
