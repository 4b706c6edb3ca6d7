// User endpoints.
import type { UserRequest } from '../http/route.js';
import { hashPassword } from '../users/password.js';
import type { DeactivationActions } from '../realm/commands/lifecycle.js';
import { Role } from '../users/records.js';

export const getOwnUser = (request: UserRequest, params: { client_gravatar: boolean }) =>
  request.realm.ask('users.me', request.user.userId, { clientGravatar: params.client_gravatar });

export async function regenerateOwnApiKey(request: UserRequest) {
  const { apiKey } = await request.realm.ask('users.regenerateApiKey', request.user.userId, { userId: request.user.userId });
  return { api_key: apiKey };
}

export async function createUser(request: UserRequest, params: { email: string; password: string; full_name: string }) {
  const passwordHash = await hashPassword(params.password);
  const { userId } = await request.realm.ask('users.create', request.user.userId, {
    email: params.email,
    fullName: params.full_name,
    role: Role.member,
    passwordHash,
  });
  return { user_id: userId };
}

interface ViewParams {
  client_gravatar: boolean;
  include_custom_profile_fields: boolean;
}

const viewOptions = (params: ViewParams) => ({ clientGravatar: params.client_gravatar, includeProfile: params.include_custom_profile_fields });

export async function getUsers(request: UserRequest, params: ViewParams) {
  return { members: await request.realm.ask('users.list', request.user.userId, viewOptions(params)) };
}

export async function getUser(request: UserRequest, params: ViewParams & { user_id: number }) {
  return { user: await request.realm.ask('users.get', request.user.userId, { userId: params.user_id, ...viewOptions(params) }) };
}

export async function getUserByEmail(request: UserRequest, params: ViewParams & { email: string }) {
  return { user: await request.realm.ask('users.get', request.user.userId, { email: params.email, ...viewOptions(params) }) };
}

export const deactivateUser = (request: UserRequest, params: { user_id: number; actions: DeactivationActions }) =>
  request.realm.ask('users.deactivate', request.user.userId, { userId: params.user_id, actions: params.actions });

export const reactivateUser = (request: UserRequest, params: { user_id: number }) =>
  request.realm.ask('users.reactivate', request.user.userId, { userId: params.user_id });

export const createBot = (request: UserRequest, params: { full_name: string; short_name: string; bot_type: number }) =>
  request.realm.ask('bots.create', request.user.userId, { fullName: params.full_name, shortName: params.short_name, botType: params.bot_type });

interface StatusParams {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export const setOwnStatus = (request: UserRequest, params: StatusParams) =>
  request.realm.ask('users.setStatus', request.user.userId, {
    statusText: params.status_text,
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
    away: params.away,
  });

export async function getUserStatus(request: UserRequest, params: { user_id: number }) {
  return { status: await request.realm.ask('users.getStatus', request.user.userId, { userId: params.user_id }) };
}

export const updateUser = (request: UserRequest, params: { user_id: number; full_name?: string; role?: number }) =>
  request.realm.ask('users.update', request.user.userId, { userId: params.user_id, fullName: params.full_name, role: params.role });

export const updateSettings = (request: UserRequest, params: { email_address_visibility?: number; timezone?: string; full_name?: string; translate_emoticons?: boolean }) =>
  request.realm.ask('settings.update', request.user.userId, {
    emailAddressVisibility: params.email_address_visibility,
    timezone: params.timezone,
    fullName: params.full_name,
    translateEmoticons: params.translate_emoticons,
  });

export const getAlertWords = (request: UserRequest) => request.realm.ask('alertWords.list', request.user.userId, {});

export const addAlertWords = (request: UserRequest, params: { alert_words: string[] }) =>
  request.realm.ask('alertWords.update', request.user.userId, { add: params.alert_words, remove: [] });

export const removeAlertWords = (request: UserRequest, params: { alert_words: string[] }) =>
  request.realm.ask('alertWords.update', request.user.userId, { add: [], remove: params.alert_words });
