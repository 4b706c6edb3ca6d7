// The check administrator-only commands make inside their transaction (the route checked the role
// when the request arrived; this holds if it changed since).
import { errors } from '../../errors.js';
import { isAdmin } from '../../users/records.js';
import type { CommandContext } from '../context.js';

export function requireAdmin(ctx: CommandContext): void {
  if (!isAdmin(ctx.user)) throw errors.adminRequired();
}
