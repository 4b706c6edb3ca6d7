// User-group endpoints.
import type { UserRequest } from '../http/route.js';

export async function getUserGroups(request: UserRequest, params: { include_deactivated_groups: boolean }) {
  return { user_groups: await request.realm.ask('groups.list', request.user.userId, { includeDeactivated: params.include_deactivated_groups }) };
}
