// The user-group object of the API.
import type { UserRecord } from '../users/records.js';
import { directMembers } from './membership.js';
import type { GroupRecord } from './records.js';

export function groupView(group: GroupRecord, users: Iterable<UserRecord>) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    members: directMembers(group, users),
    direct_subgroup_ids: group.subgroups,
    is_system_group: group.isSystemGroup,
    deactivated: group.deactivated,
    creator_id: group.creatorId,
    date_created: group.dateCreated,
    ...group.permissions,
  };
}
