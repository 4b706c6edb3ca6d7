// User-group endpoints.
import { groupPermissions, type GroupPermission, type GroupSetting } from '../groups/records.js';
import type { UserRequest } from '../http/route.js';

export async function getUserGroups(request: UserRequest, params: { include_deactivated_groups: boolean }) {
  return { user_groups: await request.realm.ask('groups.list', request.user.userId, { includeDeactivated: params.include_deactivated_groups }) };
}

type PermissionParams = Partial<Record<GroupPermission, GroupSetting>>;

export function createUserGroup(request: UserRequest, params: PermissionParams & { name: string; description: string; members: number[]; subgroups?: number[] }) {
  const permissions: PermissionParams = {};
  for (const name of groupPermissions) if (params[name] !== undefined) permissions[name] = params[name];
  return request.realm.ask('groups.create', request.user.userId, {
    name: params.name,
    description: params.description,
    members: params.members,
    subgroups: params.subgroups ?? [],
    permissions,
  });
}

export const updateUserGroup = (request: UserRequest, params: { user_group_id: number; name?: string; description?: string }) =>
  request.realm.ask('groups.update', request.user.userId, { id: params.user_group_id, name: params.name, description: params.description });

export const updateUserGroupMembers = (request: UserRequest, params: { user_group_id: number; add?: number[]; delete?: number[] }) =>
  request.realm.ask('groups.members', request.user.userId, { id: params.user_group_id, add: params.add ?? [], delete: params.delete ?? [] });

export const updateUserGroupSubgroups = (request: UserRequest, params: { user_group_id: number; add?: number[]; delete?: number[] }) =>
  request.realm.ask('groups.subgroups', request.user.userId, { id: params.user_group_id, add: params.add ?? [], delete: params.delete ?? [] });

export const deactivateUserGroup = (request: UserRequest, params: { user_group_id: number }) =>
  request.realm.ask('groups.deactivate', request.user.userId, { id: params.user_group_id });

export async function getUserGroupMembers(request: UserRequest, params: { user_group_id: number; direct_member_only: boolean }) {
  const { members } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, directOnly: params.direct_member_only });
  return { members };
}

export async function getUserGroupMembership(request: UserRequest, params: { user_group_id: number; user_id: number; direct_member_only: boolean }) {
  const { isMember } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, userId: params.user_id, directOnly: params.direct_member_only });
  return { is_user_group_member: isMember };
}

export async function getUserGroupSubgroups(request: UserRequest, params: { user_group_id: number }) {
  const { subgroups } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, directOnly: true });
  return { subgroups };
}
