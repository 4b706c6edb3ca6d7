// Password hashes: scrypt (node:crypto) with a random salt; only the hash is stored, with the
// parameters it was made with, so a server whose cost changed (PARLEY_PASSWORD_HASH_COST) still
// verifies every older hash.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

import { DEFAULT_PASSWORD_HASH_COST } from '../config.js';
import { errors } from '../errors.js';

const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;

/** Zulip's password length limits (register reports them as password_min/max_length); a
 * development server requires no length, as Zulip's development settings (PASSWORD_MIN_LENGTH 0),
 * so examples and tests may use passwords such as "temp". */
export const passwordPolicy = (mode: 'development' | 'production') => ({ minLength: mode === 'development' ? 0 : 6, maxLength: 100 });

/** scrypt's parameters: log2 of N (the cost), r and p. */
interface Parameters {
  ln: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, { ln, r, p }: Parameters): Promise<Buffer> {
  const N = 2 ** ln;
  // Node's default memory limit (32 MiB) is what scrypt takes at N = 2^15: room for the costs allowed.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem }, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$ln=<cost>,r=<r>,p=<p>$<salt>$<hash>`, salt and hash in base64. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const parameters = { ln: cost, r: BLOCK_SIZE, p: 1 };
  return `scrypt$ln=${parameters.ln},r=${parameters.r},p=${parameters.p}$${salt.toString('base64')}$${(await derive(password, salt, parameters)).toString('base64')}`;
}

/** Checks a password a user chooses against the server's policy, then hashes it. */
export function hashNewPassword(password: string, config: { mode: 'development' | 'production'; passwordHashCost: number }): Promise<string> {
  const length = [...password].length;
  const policy = passwordPolicy(config.mode);
  if (length < policy.minLength || length > policy.maxLength) throw errors.badRequest('The password is too weak.');
  return hashPassword(password, config.passwordHashCost);
}

/** A stored hash's parts; `scrypt$<salt>$<hash>`, the first format, was made with ln=14, r=8, p=1. */
function parse(stored: string): { parameters: Parameters; salt: string; hash: string } | undefined {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return undefined;
  if (parts.length === 3) return { parameters: { ln: DEFAULT_PASSWORD_HASH_COST, r: BLOCK_SIZE, p: 1 }, salt: parts[1]!, hash: parts[2]! };
  const match = /^ln=(\d+),r=(\d+),p=(\d+)$/.exec(parts[1] ?? '');
  if (parts.length !== 4 || !match) return undefined;
  return { parameters: { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }, salt: parts[2]!, hash: parts[3]! };
}

export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const expected = Buffer.from(parsed.hash, 'base64');
  const actual = await derive(password, Buffer.from(parsed.salt, 'base64'), parsed.parameters);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
