// Unauthenticated API-key fetches: development (endpoint 20), password, and JWT (endpoint 8).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { emailFromJwt } from '../auth/jwt.js';
import { errors } from '../errors.js';
import type { PublicRequest } from '../http/route.js';
import { passwordMatches } from '../users/password.js';
import { realmUrl } from '../organization/records.js';

export const devFetchApiKey = (request: PublicRequest, params: Params<typeof schemas.devFetchApiKey>) =>
  request.realm.ask('auth.login', null, { email: params.username, includeProfile: false, via: 'dev' });

/** Checks a person's e-mail and password, answering who they are; failed attempts are limited per
 * username (POST /fetch_api_key, and the pages that sign a person in). */
export async function checkPassword(request: PublicRequest, username: string, password: string): Promise<{ userId: number; fullName: string }> {
  const key = `${request.realm.realm.id}:${username.toLowerCase()}`;
  const wait = request.loginLimiter.retryAfter(key);
  if (wait > 0) throw errors.rateLimited(wait);
  const candidate = await request.realm.ask('auth.passwordHash', null, { email: username }).catch((error: unknown) => {
    request.loginLimiter.fail(key);
    throw error;
  });
  if (!(await passwordMatches(candidate.hash, password))) {
    request.loginLimiter.fail(key);
    throw errors.authenticationFailed();
  }
  return candidate;
}

/** Zulip's POST /fetch_api_key. */
export async function fetchApiKey(request: PublicRequest, params: Params<typeof schemas.fetchApiKey>) {
  await checkPassword(request, params.username, params.password);
  return request.realm.ask('auth.login', null, { email: params.username, includeProfile: false, via: 'password' });
}

/** Spec endpoint 8: `api_key`, `email`, and `user` when asked for (no user_id, as in Zulip). */
export async function jwtFetchApiKey(request: PublicRequest, params: Params<typeof schemas.jwtFetchApiKey>) {
  const email = await emailFromJwt(request.config.jwtKeys[request.realm.realm.subdomain], params.token);
  const { user_id: _userId, ...answer } = await request.realm.ask('auth.login', null, { email, includeProfile: params.include_profile, via: 'jwt' });
  return answer;
}

/** Zulip's GET /dev_list_users (development only): the people a developer may log in as with
 * `dev_fetch_api_key`, administrators apart, each with their organization's URL. */
export async function devListUsers(request: PublicRequest) {
  const { admins, users } = await request.realm.ask('auth.devUsers', null, {});
  const url = realmUrl(await request.realm.ask('realm.summary', null, {}), request.config);
  const entry = (email: string) => ({ email, realm_uri: url, realm_url: url });
  return { direct_admins: admins.map(entry), direct_users: users.map(entry) };
}
