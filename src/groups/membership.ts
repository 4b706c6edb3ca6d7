// Who is in a group or a group-setting value: direct members, and members of subgroups at any
// depth. System groups answer from the user's role.
import type { UserRecord } from '../users/records.js';
import { systemGroups, type GroupRecord, type GroupSetting, type SystemGroupName } from './records.js';

export interface GroupLookup {
  groups: ReadonlyMap<number, GroupRecord>;
}

export function isInGroup(lookup: GroupLookup, groupId: number, user: UserRecord, seen = new Set<number>()): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = lookup.groups.get(groupId);
  if (!group || group.deactivated || !user.isActive) return false;
  if (group.isSystemGroup) return systemGroups[group.name as SystemGroupName].roles.includes(user.role);
  return group.members.includes(user.id) || group.subgroups.some((subgroup) => isInGroup(lookup, subgroup, user, seen));
}

export function satisfies(lookup: GroupLookup, setting: GroupSetting, user: UserRecord): boolean {
  if (typeof setting === 'number') return isInGroup(lookup, setting, user);
  if (!user.isActive) return false;
  return setting.direct_members.includes(user.id) || setting.direct_subgroups.some((group) => isInGroup(lookup, group, user));
}

/** The direct members of a group as the API shows them (system groups from roles). */
export function directMembers(group: GroupRecord, users: Iterable<UserRecord>): number[] {
  if (!group.isSystemGroup) return group.members;
  const roles = systemGroups[group.name as SystemGroupName].directRoles;
  return [...users].filter((user) => user.isActive && roles.includes(user.role)).map((user) => user.id);
}
