// User-group endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { groupPermissions, type GroupPermission, type GroupSetting } from '../groups/records.js';
import type { UserRequest } from '../http/route.js';

export async function getUserGroups(request: UserRequest, params: Params<typeof schemas.getUserGroups>) {
  return { user_groups: await request.realm.ask('groups.list', request.user.userId, { includeDeactivated: params.include_deactivated_groups }) };
}

type PermissionParams = Partial<Record<GroupPermission, GroupSetting>>;

export function createUserGroup(request: UserRequest, params: Params<typeof schemas.createUserGroup>) {
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

export const updateUserGroup = (request: UserRequest, params: Params<typeof schemas.updateUserGroup>) =>
  request.realm.ask('groups.update', request.user.userId, { id: params.user_group_id, name: params.name, description: params.description });

export const updateUserGroupMembers = (request: UserRequest, params: Params<typeof schemas.updateUserGroupMembers>) =>
  request.realm.ask('groups.members', request.user.userId, { id: params.user_group_id, add: params.add ?? [], delete: params.delete ?? [] });

export const updateUserGroupSubgroups = (request: UserRequest, params: Params<typeof schemas.updateUserGroupSubgroups>) =>
  request.realm.ask('groups.subgroups', request.user.userId, { id: params.user_group_id, add: params.add ?? [], delete: params.delete ?? [] });

export const deactivateUserGroup = (request: UserRequest, params: Params<typeof schemas.deactivateUserGroup>) =>
  request.realm.ask('groups.deactivate', request.user.userId, { id: params.user_group_id });

export async function getUserGroupMembers(request: UserRequest, params: Params<typeof schemas.getUserGroupMembers>) {
  const { members } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, directOnly: params.direct_member_only });
  return { members };
}

export async function getUserGroupMembership(request: UserRequest, params: Params<typeof schemas.getIsUserGroupMember>) {
  const { isMember } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, userId: params.user_id, directOnly: params.direct_member_only });
  return { is_user_group_member: isMember };
}

export async function getUserGroupSubgroups(request: UserRequest, params: Params<typeof schemas.getUserGroupSubgroups>) {
  const { subgroups } = await request.realm.ask('groups.get', request.user.userId, { id: params.user_group_id, directOnly: true });
  return { subgroups };
}
