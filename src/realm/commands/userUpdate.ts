// Administrators changing a user's name and role (PATCH /users/{id}).
import { errors } from '../../errors.js';
import { directSystemGroup } from '../../groups/records.js';
import { isAdmin, Role, roles, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { checkFullName } from '../../users/names.js';
import { accessorsOf } from './userAccess.js';


/** Moves a user to another role: the record, and the system groups the role makes them a member of. */
function changeRole(ctx: CommandContext, user: UserRecord, role: Role): UserRecord {
  const updated = { ...user, role };
  ctx.save('user', updated);
  ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, role } }, accessorsOf(ctx, updated));
  const left = directSystemGroup(user.role);
  const joined = directSystemGroup(role);
  if (left !== joined) {
    if (left !== undefined) ctx.emit({ type: 'user_group', op: 'remove_members', group_id: ctx.state.systemGroup(left), user_ids: [user.id] }, ctx.activeUserIds());
    if (joined !== undefined) ctx.emit({ type: 'user_group', op: 'add_members', group_id: ctx.state.systemGroup(joined), user_ids: [user.id] }, ctx.activeUserIds());
  }
  return updated;
}

export const userUpdateCommands = {
  'users.update': writeCommand((ctx, input: { userId: number; fullName?: string; role?: number }) => {
    const requester = ctx.user;
    if (!isAdmin(requester)) throw errors.adminRequired();
    let target = ctx.state.users.get(input.userId);
    if (!target || target.isBot) throw errors.noSuchUser();
    const name = input.fullName === undefined ? undefined : checkFullName(input.fullName);
    const role = input.role;
    if (role !== undefined) {
      if (!roles.includes(role as Role)) throw errors.badRequest('Invalid role');
      const ownerChange = role === Role.owner || target.role === Role.owner;
      if (ownerChange && requester.role !== Role.owner) throw errors.ownerRequired();
      const owners = [...ctx.state.users.values()].filter((user) => user.isActive && user.role === Role.owner);
      if (target.role === Role.owner && role !== Role.owner && owners.length === 1) {
        throw errors.badRequest('The owner permission cannot be removed from the only organization owner.');
      }
    }
    if (name !== undefined && name !== target.fullName) {
      target = { ...target, fullName: name };
      ctx.save('user', target);
      ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: name } }, accessorsOf(ctx, target));
    }
    if (role !== undefined && role !== target.role) changeRole(ctx, target, role as Role);
    return {};
  }),
};
