// Password hashes: scrypt (node:crypto) with a random salt; only the hash is stored.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

import { errors } from '../errors.js';

const KEY_LENGTH = 32;

/** Zulip's password length limits (register reports them as password_min/max_length). */
export const passwordPolicy = { minLength: 6, maxLength: 100 } as const;
const OPTIONS: ScryptOptions = { N: 16384, r: 8, p: 1 };

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, OPTIONS, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$<salt>$<hash>`, both base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${(await derive(password, salt)).toString('base64')}`;
}

/** Checks a password a user chooses against the policy, then hashes it. */
export function hashNewPassword(password: string): Promise<string> {
  const length = [...password].length;
  if (length < passwordPolicy.minLength || length > passwordPolicy.maxLength) throw errors.badRequest('The password is too weak.');
  return hashPassword(password);
}

export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
