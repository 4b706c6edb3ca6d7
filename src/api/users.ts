// User endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { JsonFields } from '../realm/jsonFields.js';
import { onceReady, type UserRequest } from '../http/route.js';
import { hashNewPassword } from '../users/password.js';
import { Role } from '../users/records.js';
import { isUserSettingName } from '../users/settings.js';

export const getOwnUser = (request: UserRequest) =>
  onceReady(request.realm.answer('users.me', request.user.userId, {}), ({ userFields, maxMessageId }) => new JsonFields(`${userFields},"max_message_id":${maxMessageId}`));

export const deactivateOwnUser = (request: UserRequest) => request.realm.ask('users.deactivateSelf', request.user.userId, {});

export async function regenerateOwnApiKey(request: UserRequest) {
  const { apiKey } = await request.realm.ask('users.regenerateApiKey', request.user.userId, { userId: request.user.userId });
  return { api_key: apiKey };
}

export async function createUser(request: UserRequest, params: Params<typeof schemas.createUser>) {
  const passwordHash = await hashNewPassword(params.password, request.config);
  const { userId } = await request.realm.ask('users.create', request.user.userId, {
    email: params.email,
    fullName: params.full_name,
    role: Role.member,
    passwordHash,
  });
  return { user_id: userId };
}

const viewOptions = (params: Params<typeof schemas.getUsers>) => ({ clientGravatar: params.client_gravatar, includeProfile: params.include_custom_profile_fields });

export const getUsers = (request: UserRequest, params: Params<typeof schemas.getUsers>) => request.realm.askFields('users.list', request.user.userId, viewOptions(params));

export async function getUser(request: UserRequest, params: Params<typeof schemas.getUser>) {
  return { user: await request.realm.ask('users.get', request.user.userId, { userId: params.user_id, ...viewOptions(params) }) };
}

export async function getUserByEmail(request: UserRequest, params: Params<typeof schemas.getUserByEmail>) {
  return { user: await request.realm.ask('users.get', request.user.userId, { email: params.email, ...viewOptions(params) }) };
}

export const deactivateUser = (request: UserRequest, params: Params<typeof schemas.deactivateUser>) =>
  request.realm.ask('users.deactivate', request.user.userId, { userId: params.user_id, actions: params.actions });

export const reactivateUser = (request: UserRequest, params: Params<typeof schemas.reactivateUser>) =>
  request.realm.ask('users.reactivate', request.user.userId, { userId: params.user_id });

/** What creating and changing a bot share: its service and configuration, as each names them. */
const serviceInput = (payloadUrl: string | null | undefined, interfaceType: number | undefined, configData: Record<string, unknown> | undefined) => ({
  payloadUrl: payloadUrl ?? undefined,
  interfaceType,
  configData,
});

export const createBot = (request: UserRequest, params: Params<typeof schemas.createBot>) =>
  request.realm.ask('bots.create', request.user.userId, {
    fullName: params.full_name,
    shortName: params.short_name,
    botType: params.bot_type,
    ...serviceInput(params.payload_url, params.interface_type, params.config_data),
  });

export const updateBot = (request: UserRequest, params: Params<typeof schemas.updateBot>) =>
  request.realm.ask('bots.update', request.user.userId, {
    botId: params.bot_id,
    fullName: params.full_name,
    botOwnerId: params.bot_owner_id,
    ...serviceInput(params.service_payload_url, params.service_interface, params.config_data),
  });

export const regenerateBotApiKey = (request: UserRequest, params: Params<typeof schemas.botId>) => request.realm.ask('bots.regenerateKey', request.user.userId, { botId: params.bot_id });

export const deactivateBot = (request: UserRequest, params: Params<typeof schemas.botId>) => request.realm.ask('bots.deactivate', request.user.userId, { botId: params.bot_id });

/** What setting one's own status and, as an administrator, another user's share. */
const statusInput = (params: Params<typeof schemas.updateStatusForUser> | Params<typeof schemas.updateStatus>) => ({
  statusText: params.status_text,
  emojiName: params.emoji_name,
  emojiCode: params.emoji_code,
  reactionType: params.reaction_type,
});

export const setOwnStatus = (request: UserRequest, params: Params<typeof schemas.updateStatus>) =>
  request.realm.ask('users.setStatus', request.user.userId, { ...statusInput(params), away: params.away });

export const setUserStatus = (request: UserRequest, params: Params<typeof schemas.updateStatusForUser>) =>
  request.realm.ask('users.setStatus', request.user.userId, { ...statusInput(params), userId: params.user_id });

export async function getUserStatus(request: UserRequest, params: Params<typeof schemas.getUserStatus>) {
  return { status: await request.realm.ask('users.getStatus', request.user.userId, { userId: params.user_id }) };
}

export const updateUser = (request: UserRequest, params: Params<typeof schemas.updateUser>) =>
  request.realm.ask('users.update', request.user.userId, { userId: params.user_id, fullName: params.full_name, role: params.role });

export function updateSettings(request: UserRequest, params: Params<typeof schemas.updateSettings>) {
  const settings = Object.fromEntries(Object.entries(params).filter(([name]) => isUserSettingName(name)));
  return request.realm.ask('settings.update', request.user.userId, { fullName: params.full_name, settings });
}

export const getAlertWords = (request: UserRequest) => request.realm.ask('alertWords.list', request.user.userId, {});

export const addAlertWords = (request: UserRequest, params: Params<typeof schemas.addAlertWords>) =>
  request.realm.ask('alertWords.update', request.user.userId, { add: params.alert_words, remove: [] });

export const removeAlertWords = (request: UserRequest, params: Params<typeof schemas.removeAlertWords>) =>
  request.realm.ask('alertWords.update', request.user.userId, { add: [], remove: params.alert_words });

export const muteUser = (request: UserRequest, params: Params<typeof schemas.muteUser>) =>
  request.realm.ask('mutedUsers.add', request.user.userId, { userId: params.muted_user_id });

export const unmuteUser = (request: UserRequest, params: Params<typeof schemas.unmuteUser>) =>
  request.realm.ask('mutedUsers.remove', request.user.userId, { userId: params.muted_user_id });
