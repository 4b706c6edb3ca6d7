// User groups: creating, renaming, membership, subgroups (spec endpoint 19: unknown IDs and any
// change that would make a cycle are refused and change nothing) and deactivation; events.
import { errors } from '../../errors.js';
import { isInGroup, satisfies } from '../../groups/membership.js';
import { groupPermissions, type GroupPermission, type GroupRecord, type GroupSetting } from '../../groups/records.js';
import { groupView } from '../../groups/view.js';
import { isAdmin, Role } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { checkGroupSetting } from './groupSettingChange.js';

export const MAX_GROUP_NAME_LENGTH = 100;


/** A group the acting user may change: a user-defined one, managed by them or an administrator. */
export function manageableGroup(ctx: ReadContext, id: number): GroupRecord {
  const group = ctx.state.groups.get(id);
  if (!group) throw errors.badRequest('Invalid user group');
  if (group.isSystemGroup) throw errors.insufficientRights();
  const user = ctx.user;
  if (!isAdmin(user) && !satisfies(ctx.state, group.permissions.can_manage_group, user)) throw errors.insufficientRights();
  return group;
}

/** Adds and removes members of a group (checked by the caller) and tells everyone. */
/** Who hears of a group's changes: everyone, but for a deactivated group only the clients that
 * declared include_deactivated_groups (the others were told it is gone). */
const groupAudience = (ctx: CommandContext, group: GroupRecord) =>
  [ctx.activeUserIds(), group.deactivated ? { capability: { name: 'include_deactivated_groups' as const, declared: true } } : {}] as const;

export function changeMembers(ctx: CommandContext, group: GroupRecord, add: readonly number[], remove: readonly number[] = []): void {
  ctx.save('group', { ...group, members: [...group.members.filter((id) => !remove.includes(id)), ...add] });
  if (add.length > 0) ctx.emit({ type: 'user_group', op: 'add_members', group_id: group.id, user_ids: [...add] }, ...groupAudience(ctx, group));
  if (remove.length > 0) ctx.emit({ type: 'user_group', op: 'remove_members', group_id: group.id, user_ids: [...remove] }, ...groupAudience(ctx, group));
}

function checkName(ctx: CommandContext, name: string, id: number | null): string {
  const trimmed = name.trim();
  if (trimmed === '') throw errors.badRequest('User group name cannot be empty.');
  if ([...trimmed].length > MAX_GROUP_NAME_LENGTH) throw errors.badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  if (trimmed.startsWith('role:')) throw errors.badRequest("User group name cannot start with 'role:'.");
  for (const group of ctx.state.groups.values()) {
    if (group.id !== id && group.name.toLowerCase() === trimmed.toLowerCase()) throw errors.badRequest(`User group '${trimmed}' already exists.`);
  }
  return trimmed;
}

function checkUsers(ctx: CommandContext, ids: readonly number[]): void {
  for (const id of ids) if (!ctx.state.users.get(id)?.isActive) throw errors.badRequest(`Invalid user ID: ${id}`);
}

function checkGroups(ctx: CommandContext, ids: readonly number[]): void {
  for (const id of ids) if (!ctx.state.groups.has(id) || ctx.state.groups.get(id)!.deactivated) throw errors.badRequest(`Invalid user group ID: ${id}`);
}

/** Would making `subgroups` direct subgroups of `group` let the group contain itself? */
function makesCycle(ctx: CommandContext, group: GroupRecord, subgroups: readonly number[]): boolean {
  const reaches = (from: number, seen = new Set<number>()): boolean => {
    if (from === group.id) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return (ctx.state.groups.get(from)?.subgroups ?? []).some((next) => reaches(next, seen));
  };
  return subgroups.some((subgroup) => reaches(subgroup));
}

export interface NewGroup {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  permissions: Partial<Record<GroupPermission, GroupSetting>>;
}

export const userGroupCommands = {
  'groups.create': writeCommand((ctx, input: NewGroup) => {
    const creator = ctx.user;
    if (creator.role === Role.guest) throw errors.insufficientRights();
    const name = checkName(ctx, input.name, null);
    checkUsers(ctx, input.members);
    checkGroups(ctx, input.subgroups);
    const nobody = ctx.state.systemGroup('role:nobody');
    const permissions = Object.fromEntries(groupPermissions.map((permission) => [permission, nobody])) as Record<GroupPermission, GroupSetting>;
    Object.assign(permissions, { can_manage_group: { direct_members: [creator.id], direct_subgroups: [] }, can_mention_group: ctx.state.systemGroup('role:everyone') });
    for (const [permission, setting] of Object.entries(input.permissions) as [GroupPermission, GroupSetting][]) permissions[permission] = checkGroupSetting(ctx.state, setting);
    const group: GroupRecord = {
      id: ctx.store.nextId('group'),
      realmId: ctx.state.realm.id,
      name,
      description: input.description,
      isSystemGroup: false,
      members: [...new Set(input.members)],
      subgroups: [...new Set(input.subgroups)],
      deactivated: false,
      creatorId: creator.id,
      dateCreated: ctx.now,
      permissions,
    };
    ctx.save('group', group);
    ctx.emit({ type: 'user_group', op: 'add', group: groupView(group, ctx.state.users.values()) }, ctx.activeUserIds());
    return { group_id: group.id };
  }),

  'groups.update': writeCommand((ctx, input: { id: number; name?: string; description?: string }) => {
    const group = manageableGroup(ctx, input.id);
    const data: Record<string, unknown> = {};
    if (input.name !== undefined) data.name = checkName(ctx, input.name, group.id);
    if (input.description !== undefined) data.description = input.description;
    ctx.save('group', { ...group, name: (data.name as string | undefined) ?? group.name, description: input.description ?? group.description });
    ctx.emit({ type: 'user_group', op: 'update', group_id: group.id, data }, ...groupAudience(ctx, group));
    return {};
  }),

  'groups.members': writeCommand((ctx, input: { id: number; add: number[]; delete: number[] }) => {
    const group = manageableGroup(ctx, input.id);
    checkUsers(ctx, input.add);
    for (const id of input.add) if (group.members.includes(id)) throw errors.badRequest(`User ${id} is already a member of this group`);
    for (const id of input.delete) if (!group.members.includes(id)) throw errors.badRequest(`There is no member '${id}' in this user group`);
    changeMembers(ctx, group, input.add, input.delete);
    return {};
  }),

  /** Spec endpoint 19. */
  'groups.subgroups': writeCommand((ctx, input: { id: number; add: number[]; delete: number[] }) => {
    const group = manageableGroup(ctx, input.id);
    checkGroups(ctx, [...input.add, ...input.delete]);
    for (const id of input.add) if (group.subgroups.includes(id)) throw errors.badRequest(`User group ${id} is already a subgroup of this group.`);
    for (const id of input.delete) if (!group.subgroups.includes(id)) throw errors.badRequest(`User group ${id} is not a subgroup of this group.`);
    if (makesCycle(ctx, group, input.add)) throw errors.badRequest('User group is already a subgroup of one of the passed subgroups.');
    ctx.save('group', { ...group, subgroups: [...group.subgroups.filter((id) => !input.delete.includes(id)), ...input.add] });
    if (input.add.length > 0) ctx.emit({ type: 'user_group', op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: input.add }, ...groupAudience(ctx, group));
    if (input.delete.length > 0) ctx.emit({ type: 'user_group', op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: input.delete }, ...groupAudience(ctx, group));
    return {};
  }),

  'groups.deactivate': writeCommand((ctx, input: { id: number }) => {
    const group = manageableGroup(ctx, input.id);
    const usedBy = [...ctx.state.channels.values()].some((channel) => Object.values(channel.permissions).some((setting) => setting === group.id));
    if (usedBy) throw errors.badRequest('Cannot deactivate user group in use.');
    ctx.save('group', { ...group, deactivated: true });
    const everyone = ctx.activeUserIds();
    ctx.emit({ type: 'user_group', op: 'update', group_id: group.id, data: { deactivated: true } }, everyone, { capability: { name: 'include_deactivated_groups', declared: true } });
    ctx.emit({ type: 'user_group', op: 'remove', group_id: group.id }, everyone, { capability: { name: 'include_deactivated_groups', declared: false } });
    return {};
  }),

  'groups.get': readCommand((ctx, input: { id: number; userId?: number; directOnly: boolean }) => {
    const group = ctx.state.groups.get(input.id);
    if (!group) throw errors.badRequest('Invalid user group');
    const users = [...ctx.state.users.values()];
    const members = input.directOnly ? groupView(group, users).members : users.filter((user) => isInGroup(ctx.state, group.id, user)).map((user) => user.id);
    return { members, subgroups: group.subgroups, isMember: input.userId === undefined ? undefined : members.includes(input.userId) };
  }),
};
