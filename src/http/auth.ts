// Credentials: the HTTP Basic Authorization header, or an incoming webhook's `api_key`, checked by
// the realm actor.
import { errors } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import type { Principal } from '../auth/basic.js';

/** The user an Authorization header names; 401 errors for a missing, malformed or wrong one. A
 * local realm answers at once (no promise); a remote one through a promise. */
export function authenticate(realm: RealmHandle, header: string): Principal | Promise<Principal> {
  if (header === '') throw errors.unauthorized();
  return realm.answer('auth.basic', null, { authorization: header });
}

/** An incoming webhook's user: the URL's `api_key` (a service's own Authorization header, for
 * its own purposes, does not stand in its way), else HTTP Basic credentials. */
export function authenticateWebhook(realm: RealmHandle, header: string, apiKey: string | undefined): Principal | Promise<Principal> {
  if (apiKey === undefined) return authenticate(realm, header);
  return realm.answer('auth.apiKey', null, { apiKey });
}
