// The rule for full names (Zulip's: not blank, at most 100 characters).
import { errors } from '../errors.js';

export const MAX_FULL_NAME_LENGTH = 100;

/** The name, trimmed; an API error when it is blank or too long. */
export function checkFullName(fullName: string): string {
  const name = fullName.trim();
  if (name === '') throw errors.badRequest('Name too short!');
  if ([...name].length > MAX_FULL_NAME_LENGTH) throw errors.badRequest('Name too long!');
  return name;
}

/** Active users by full name lowercased, the first of each name in the users' order: the one a
 * mention of that name means (the realm's state and a render worker's copy index alike). */
export function activeUsersByName<U extends { fullName: string; isActive: boolean }>(users: Iterable<U>): Map<string, U> {
  const named = new Map<string, U>();
  for (const user of users) {
    const name = user.fullName.toLowerCase();
    if (user.isActive && !named.has(name)) named.set(name, user);
  }
  return named;
}
