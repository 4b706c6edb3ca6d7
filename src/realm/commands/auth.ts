// Authentication commands: HTTP Basic credentials and the development key fetch.
import { errors } from '../../errors.js';
import { apiKeyMatches, newApiKey } from '../../users/apiKey.js';
import type { UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';

// Compared against when the user does not exist, so the answer takes as long either way.
const absentKey = newApiKey();

export interface Principal {
  userId: number;
  role: number;
}

export const authCommands = {
  'auth.basic': readCommand((ctx, input: { username: string; apiKey: string }): Principal => {
    const user = ctx.state.userByApiEmail(input.username, ctx.fakeEmailDomain);
    const matches = apiKeyMatches(user?.apiKey ?? absentKey, input.apiKey);
    if (!user || !matches) throw errors.invalidApiKey();
    if (!user.isActive) throw errors.userDeactivated();
    if (ctx.state.realm.deactivated) throw errors.realmDeactivated();
    return { userId: user.id, role: user.role };
  }),

  'auth.devFetchApiKey': writeCommand((ctx, input: { username: string }) => {
    if (ctx.config.mode !== 'development') throw errors.devOnly();
    if (ctx.state.realm.deactivated) throw errors.realmDeactivated();
    const user = ctx.state.userByEmail(input.username);
    if (!user) throw errors.authenticationFailed();
    if (!user.isActive) throw errors.userDeactivated();
    recordLogin(ctx, user);
    return { api_key: user.apiKey, email: user.email, user_id: user.id };
  }),
};

/** The first login fixes date_joined (spec, User object). */
export function recordLogin(ctx: CommandContext, user: UserRecord): void {
  if (user.firstLogin !== null) return;
  ctx.saveUser({ ...user, firstLogin: ctx.now });
}
