// User endpoints.
import type { UserRequest } from '../http/route.js';
import { hashPassword } from '../users/password.js';
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
