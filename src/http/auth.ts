// HTTP Basic authentication: e-mail (or the dummy form) and API key, checked by the realm actor.
import { errors } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import type { Principal } from '../realm/commands/auth.js';

export interface BasicCredentials {
  username: string;
  password: string;
}

export function parseBasic(header: string): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The user an Authorization header names; 401 errors for a missing, malformed or wrong one. A
 * local realm answers at once (no promise); a remote one through a promise. */
export function authenticate(realm: RealmHandle, header: string): Principal | Promise<Principal> {
  if (header === '') throw errors.unauthorized();
  const credentials = parseBasic(header);
  if (!credentials) throw errors.unauthorized('Invalid authorization header for basic auth');
  return realm.answer('auth.basic', null, { username: credentials.username, apiKey: credentials.password });
}
