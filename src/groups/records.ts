// User groups and group-setting values (spec: "Group-setting value"). Each realm has Zulip's
// system groups, whose membership follows roles and is derived from them, never stored.
import { Role } from '../users/records.js';

export const groupPermissions = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type GroupPermission = (typeof groupPermissions)[number];

export interface GroupRecord {
  id: number;
  realmId: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  /** Direct members (user IDs); empty for system groups, whose members come from roles. */
  members: number[];
  /** Direct subgroups (group IDs). */
  subgroups: number[];
  deactivated: boolean;
  creatorId: number | null;
  dateCreated: number;
  permissions: Record<GroupPermission, GroupSetting>;
}

/** A permission: a group ID, or an anonymous set of users and groups. */
export type GroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

export const SystemGroup = {
  internet: 'role:internet',
  everyone: 'role:everyone',
  members: 'role:members',
  fullMembers: 'role:fullmembers',
  moderators: 'role:moderators',
  administrators: 'role:administrators',
  owners: 'role:owners',
  nobody: 'role:nobody',
} as const;
export type SystemGroupName = (typeof SystemGroup)[keyof typeof SystemGroup];

interface SystemGroupShape {
  description: string;
  /** The roles whose users are direct members. */
  directRoles: Role[];
  /** The next smaller system group, its one subgroup (Zulip nests them this way). */
  subgroup: SystemGroupName | null;
  /** Every role that is a member, directly or through subgroups. */
  roles: Role[];
}

export const systemGroups: Record<SystemGroupName, SystemGroupShape> = {
  'role:owners': { description: 'Owners of this organization', directRoles: [Role.owner], subgroup: null, roles: [Role.owner] },
  'role:administrators': {
    description: 'Administrators of this organization, including owners',
    directRoles: [Role.administrator],
    subgroup: 'role:owners',
    roles: [Role.owner, Role.administrator],
  },
  'role:moderators': {
    description: 'Moderators of this organization, including administrators',
    directRoles: [Role.moderator],
    subgroup: 'role:administrators',
    roles: [Role.owner, Role.administrator, Role.moderator],
  },
  'role:fullmembers': {
    description: 'Members of this organization, not including new accounts and guests',
    directRoles: [Role.member],
    subgroup: 'role:moderators',
    roles: [Role.owner, Role.administrator, Role.moderator, Role.member],
  },
  'role:members': {
    description: 'Members of this organization, not including guests',
    directRoles: [],
    subgroup: 'role:fullmembers',
    roles: [Role.owner, Role.administrator, Role.moderator, Role.member],
  },
  'role:everyone': {
    description: 'Everyone in this organization, including guests',
    directRoles: [Role.guest],
    subgroup: 'role:members',
    roles: [Role.owner, Role.administrator, Role.moderator, Role.member, Role.guest],
  },
  'role:internet': { description: 'Everyone on the Internet', directRoles: [], subgroup: 'role:everyone', roles: [Role.owner, Role.administrator, Role.moderator, Role.member, Role.guest] },
  'role:nobody': { description: 'Nobody', directRoles: [], subgroup: null, roles: [] },
};

/** Creation order: a group's subgroup exists before it. */
export const systemGroupOrder: SystemGroupName[] = [
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
  'role:nobody',
];

/** The system group a role makes a user a direct member of. */
export function directSystemGroup(role: Role): SystemGroupName | undefined {
  return systemGroupOrder.find((name) => systemGroups[name].directRoles.includes(role));
}
