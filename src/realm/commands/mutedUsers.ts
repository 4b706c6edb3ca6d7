// Muted users (POST/DELETE /users/me/muted_users/{id}), as Zulip's zerver/views/muted_users.py:
// a muted sender's messages are marked read, the ones already received and every new one.
import { errors } from '../../errors.js';
import { hasMuted, type MutedUser, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { markSenderRead } from './flags.js';
import { checkCanAccess } from './userAccess.js';

/** The user Zulip's access_user_by_id finds for muting: every user of the realm the requester can
 * see, bots and deactivated users included. */
function mutable(ctx: CommandContext, userId: number): UserRecord {
  const target = ctx.state.users.get(userId);
  if (!target) throw errors.noSuchUser();
  return checkCanAccess(ctx, ctx.user, target);
}

/** Stores the user's muted users and tells their clients the whole list. */
function saveMuted(ctx: CommandContext, user: UserRecord, mutedUsers: MutedUser[]): void {
  ctx.save('user', { ...user, mutedUsers });
  ctx.emit({ type: 'muted_users', muted_users: mutedUsers }, [user.id]);
}

export const mutedUserCommands = {
  'mutedUsers.add': writeCommand((ctx, input: { userId: number }) => {
    const user = ctx.user;
    if (input.userId === user.id) throw errors.badRequest('Cannot mute self');
    const target = mutable(ctx, input.userId);
    if (hasMuted(user, target.id)) throw errors.badRequest('User already muted');
    saveMuted(ctx, user, [...(user.mutedUsers ?? []), { id: target.id, timestamp: ctx.now }]);
    markSenderRead(ctx, user, target.id);
    return {};
  }),

  'mutedUsers.remove': writeCommand((ctx, input: { userId: number }) => {
    const user = ctx.user;
    const target = mutable(ctx, input.userId);
    if (!hasMuted(user, target.id)) throw errors.badRequest('User is not muted');
    saveMuted(
      ctx,
      user,
      (user.mutedUsers ?? []).filter((muted) => muted.id !== target.id),
    );
    return {};
  }),
};

export const mutedUsersInitialState = (ctx: ReadContext) => ({ muted_users: ctx.user.mutedUsers ?? [] });
