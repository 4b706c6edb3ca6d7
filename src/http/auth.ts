// HTTP Basic authentication: the Authorization header, checked by the realm actor.
import { errors } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import type { Principal } from '../auth/basic.js';

/** The user an Authorization header names; 401 errors for a missing, malformed or wrong one. A
 * local realm answers at once (no promise); a remote one through a promise. */
export function authenticate(realm: RealmHandle, header: string): Principal | Promise<Principal> {
  if (header === '') throw errors.unauthorized();
  return realm.answer('auth.basic', null, { authorization: header });
}
