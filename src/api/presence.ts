// Presence endpoints: POST /users/me/presence, GET /users/{user_id_or_email}/presence,
// GET /realm/presence.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export const updatePresence = (request: UserRequest, params: Params<typeof schemas.updatePresence>) =>
  request.realm.ask('presence.report', request.user.userId, {
    status: params.status,
    pingOnly: params.ping_only,
    // Passing last_update_id asks for the modern format (Zulip 9.0).
    slim: params.slim_presence || params.last_update_id !== undefined,
    lastUpdateId: params.last_update_id ?? null,
    historyLimitDays: params.history_limit_days ?? null,
  });

export const getUserPresence = (request: UserRequest, params: Params<typeof schemas.getUserPresence>) =>
  request.realm.ask('presence.ofUser', request.user.userId, { userIdOrEmail: params.email });

export const getRealmPresence = (request: UserRequest) => request.realm.ask('presence.realm', request.user.userId, {});
