// The check administrator-only commands make inside their transaction (the route checked the role
// when the request arrived; this holds if it changed since).
import { errors } from '../../errors.js';
import { isAdmin } from '../../users/records.js';
import type { CommandContext, ReadContext } from '../context.js';

export function requireAdmin(ctx: CommandContext): void {
  if (!isAdmin(ctx.user)) throw errors.adminRequired();
}

/** The organization's active human administrators (those told of data exports and consents). */
export const activeAdminIds = (ctx: ReadContext): number[] => [...ctx.state.users.values()].filter((user) => user.isActive && !user.isBot && isAdmin(user)).map((user) => user.id);
