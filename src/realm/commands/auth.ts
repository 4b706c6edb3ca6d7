// Authentication commands: HTTP Basic credentials and the development key fetch.
import { parseBasic, type Principal } from '../../auth/basic.js';
import { errors } from '../../errors.js';
import { apiKeyMatches, newApiKey } from '../../users/apiKey.js';
import { BotType, isAdmin, type UserRecord } from '../../users/records.js';
import { instantCommand, readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { viewAs } from './users.js';

// Compared against when the user does not exist, so the answer takes as long either way.
const absentKey = newApiKey();

export const authCommands = {
  /** An Authorization header's user. An accepted header is kept until the realm's state next
   * changes: a new key, a deactivation (or any other save) has the next request checked anew. */
  'auth.basic': instantCommand((ctx, input: { authorization: string }): Principal => ctx.state.principals.get(input.authorization, () => checkBasic(ctx, input.authorization))),

  /** The user of an incoming webhook's `api_key` (the key alone names its bot, as in Zulip). */
  'auth.apiKey': instantCommand((ctx, input: { apiKey: string }): Principal => {
    const user = input.apiKey === '' ? undefined : ctx.state.userByApiKey(input.apiKey);
    if (!user) throw errors.invalidApiKey();
    return principalOf(ctx, user);
  }),

  /** Issues the API key of a user whose identity was proven outside (development key fetch,
   * password, JWT): records the first login and answers as the key-fetch endpoints do. */
  'auth.login': writeCommand((ctx, input: { email: string; includeProfile: boolean; via: 'dev' | 'password' | 'jwt' }) => {
    if (input.via === 'dev' && ctx.config.mode !== 'development') throw errors.devOnly();
    if (ctx.state.realm.deactivated) throw errors.realmDeactivated();
    const user = loginCandidate(ctx, input.email);
    recordLogin(ctx, user);
    const answer = { api_key: user.apiKey, email: user.email, user_id: user.id };
    return input.includeProfile ? { ...answer, user: viewAs(ctx, user, { clientGravatar: false }, user) } : answer;
  }),

  /** Zulip's development login list: the active people of the realm, administrators apart. */
  'auth.devUsers': readCommand((ctx) => {
    if (ctx.config.mode !== 'development') throw errors.devOnly();
    const people = [...ctx.state.users.values()].filter((user) => user.isActive && !user.isBot).sort((a, b) => a.email.localeCompare(b.email));
    const emails = (admins: boolean) => people.filter((user) => isAdmin(user) === admins).map((user) => user.email);
    return { admins: emails(true), users: emails(false) };
  }),

  /** The stored password hash of a user about to log in with a password. */
  /** Who signs in with this e-mail, and the hash their password must match. */
  'auth.passwordHash': readCommand((ctx, input: { email: string }) => {
    const user = loginCandidate(ctx, input.email);
    if (user.passwordHash === null) throw errors.authenticationFailed();
    return { hash: user.passwordHash, userId: user.id, fullName: user.fullName };
  }),
};

function checkBasic(ctx: ReadContext, authorization: string): Principal {
  const credentials = parseBasic(authorization);
  if (!credentials) throw errors.unauthorized('Invalid authorization header for basic auth');
  const user = ctx.state.userByApiEmail(credentials.username, ctx.fakeEmailDomain);
  const matches = apiKeyMatches(user?.apiKey ?? absentKey, credentials.password);
  if (!user || !matches) throw errors.invalidApiKey();
  return principalOf(ctx, user);
}

/** Whose request it is, once a key has named an active user of a live realm. */
function principalOf(ctx: ReadContext, user: UserRecord): Principal {
  if (!user.isActive) throw errors.userDeactivated();
  if (ctx.state.realm.deactivated) throw errors.realmDeactivated();
  return { userId: user.id, role: user.role, isBot: user.isBot, incomingWebhook: user.botType === BotType.incomingWebhook };
}

function loginCandidate(ctx: ReadContext, email: string): UserRecord {
  const user = ctx.state.userByEmail(email);
  if (!user) throw errors.authenticationFailed();
  if (!user.isActive) throw errors.userDeactivated();
  return user;
}

/** The first login fixes date_joined (spec, User object). */
export function recordLogin(ctx: CommandContext, user: UserRecord): void {
  if (user.firstLogin !== null) return;
  ctx.save('user', { ...user, firstLogin: ctx.now });
}
