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
