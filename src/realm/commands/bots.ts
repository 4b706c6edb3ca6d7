// The bots a user administers (register's `realm_bots`, Zulip's bot dictionaries) and the
// `realm_bot` events that keep them current: a bot's owner and the organization's administrators
// see it, with its API key. The realm's own bots (notification bot, Welcome Bot) are the server's,
// not anyone's.
import type { RealmBotEvent } from '../../events/catalogue.js';
import { isSystemBot } from '../../organization/records.js';
import { isAdmin, type UserRecord } from '../../users/records.js';
import { botServices, botView } from '../../users/view.js';
import type { CommandContext, ReadContext } from '../context.js';

function isAdministeredBot(ctx: ReadContext, user: UserRecord): boolean {
  return user.isBot && !isSystemBot(ctx.state.realm, user.id);
}

/** Who sees a bot in realm_bots: its owner and every active administrator. */
function botAudience(ctx: CommandContext, bot: UserRecord): number[] {
  const ids: number[] = [];
  for (const user of ctx.state.users.values()) if (user.isActive && !user.isBot && (isAdmin(user) || user.id === bot.botOwnerId)) ids.push(user.id);
  return ids;
}


export function realmBotsInitialState(ctx: ReadContext) {
  const viewer = ctx.user;
  const bots = [...ctx.state.users.values()].filter((user) => isAdministeredBot(ctx, user) && (isAdmin(viewer) || user.botOwnerId === viewer.id));
  return { realm_bots: bots.map((bot) => botView(bot, ctx.fakeEmailDomain)) };
}

/** Announces a bot's change to those who see it: `before` undefined for a new bot; otherwise the
 * fields that changed (deactivation is Zulip's `remove`). A new owner who is not an administrator
 * gets the bot as an `add`, and a previous one a `delete` (Zulip's do_change_bot_owner). */
export function announceBot(ctx: CommandContext, before: UserRecord | undefined, after: UserRecord): void {
  if (!isAdministeredBot(ctx, after)) return;
  const audience = botAudience(ctx, after);
  if (!before) return ctx.emit({ type: 'realm_bot', op: 'add', bot: botView(after, ctx.fakeEmailDomain) }, audience);
  if (before.isActive && !after.isActive) return ctx.emit({ type: 'realm_bot', op: 'remove', bot: { user_id: after.id, full_name: after.fullName } }, audience);
  let updated = audience;
  if (before.botOwnerId !== after.botOwnerId) {
    const previous = before.botOwnerId === null ? undefined : ctx.state.users.get(before.botOwnerId);
    if (previous?.isActive && !isAdmin(previous)) ctx.emit({ type: 'realm_bot', op: 'delete', bot: { user_id: after.id } }, [previous.id]);
    const next = after.botOwnerId === null ? undefined : ctx.state.users.get(after.botOwnerId);
    if (next && !isAdmin(next)) {
      ctx.emit({ type: 'realm_bot', op: 'add', bot: botView(after, ctx.fakeEmailDomain) }, [next.id]);
      updated = audience.filter((id) => id !== next.id);
    }
  }
  const changed: Extract<RealmBotEvent, { op: 'update' }>['bot'] = { user_id: after.id };
  if (before.isActive !== after.isActive) changed.is_active = after.isActive;
  if (before.fullName !== after.fullName) changed.full_name = after.fullName;
  if (before.apiKey !== after.apiKey) changed.api_key = after.apiKey;
  if (before.botOwnerId !== after.botOwnerId) changed.owner_id = after.botOwnerId;
  const services = botServices(after);
  if (JSON.stringify(botServices(before)) !== JSON.stringify(services)) changed.services = services;
  if (Object.keys(changed).length > 1) ctx.emit({ type: 'realm_bot', op: 'update', bot: changed }, updated);
}
