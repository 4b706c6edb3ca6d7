// The bots a user administers (register's `realm_bots`, Zulip's bot dictionaries) and the
// `realm_bot` events that keep them current: a bot's owner and the organization's administrators
// see it, with its API key. The realm's own notification bot is the server's, not anyone's.
import type { RealmBotEvent } from '../../events/catalogue.js';
import { isAdmin, type UserRecord } from '../../users/records.js';
import { botView } from '../../users/view.js';
import type { CommandContext, ReadContext } from '../context.js';

function isAdministeredBot(ctx: ReadContext, user: UserRecord): boolean {
  return user.isBot && user.id !== ctx.state.realm.notificationBotId;
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
 * fields that changed (deactivation is Zulip's `remove`). */
export function announceBot(ctx: CommandContext, before: UserRecord | undefined, after: UserRecord): void {
  if (!isAdministeredBot(ctx, after)) return;
  let event: RealmBotEvent;
  if (!before) event = { type: 'realm_bot', op: 'add', bot: botView(after, ctx.fakeEmailDomain) };
  else if (before.isActive && !after.isActive) event = { type: 'realm_bot', op: 'remove', bot: { user_id: after.id, full_name: after.fullName } };
  else {
    const changed: Extract<RealmBotEvent, { op: 'update' }>['bot'] = { user_id: after.id };
    if (before.isActive !== after.isActive) changed.is_active = after.isActive;
    if (before.fullName !== after.fullName) changed.full_name = after.fullName;
    if (before.apiKey !== after.apiKey) changed.api_key = after.apiKey;
    if (before.botOwnerId !== after.botOwnerId) changed.owner_id = after.botOwnerId;
    if (Object.keys(changed).length === 1) return;
    event = { type: 'realm_bot', op: 'update', bot: changed };
  }
  ctx.emit(event, botAudience(ctx, after));
}
