// Reordering a realm's list (profile fields, channel folders): the new order must name every item once.
import { errors } from '../../errors.js';

export function checkOrder(known: Iterable<number>, order: readonly number[]): void {
  const ids = [...known].sort((a, b) => a - b);
  const given = [...order].sort((a, b) => a - b);
  if (ids.length !== given.length || ids.some((id, i) => id !== given[i])) throw errors.badRequest('Invalid order mapping.');
}
