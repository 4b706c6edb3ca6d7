// Password hashes: scrypt (node:crypto) with a random salt; only the hash is stored.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

import { errors } from '../errors.js';

const KEY_LENGTH = 32;

/** Zulip's password length limits (register reports them as password_min/max_length); a
 * development server requires no length, as Zulip's development settings (PASSWORD_MIN_LENGTH 0),
 * so examples and tests may use passwords such as "temp". */
export const passwordPolicy = (mode: 'development' | 'production') => ({ minLength: mode === 'development' ? 0 : 6, maxLength: 100 });
const OPTIONS: ScryptOptions = { N: 16384, r: 8, p: 1 };

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, OPTIONS, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$<salt>$<hash>`, both base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${(await derive(password, salt)).toString('base64')}`;
}

/** Checks a password a user chooses against the server's policy, then hashes it. */
export function hashNewPassword(password: string, mode: 'development' | 'production'): Promise<string> {
  const length = [...password].length;
  const policy = passwordPolicy(mode);
  if (length < policy.minLength || length > policy.maxLength) throw errors.badRequest('The password is too weak.');
  return hashPassword(password);
}

export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
