// API keys: 32 random alphanumeric characters (as Zulip's), compared in constant time.
import { randomInt, timingSafeEqual } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 32;

export function newApiKey(): string {
  let key = '';
  for (let i = 0; i < API_KEY_LENGTH; i++) key += alphabet[randomInt(alphabet.length)];
  return key;
}

export function apiKeyMatches(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  // Comparing against itself when lengths differ keeps the time independent of where they differ.
  return timingSafeEqual(a, a.length === b.length ? b : a) && a.length === b.length;
}
