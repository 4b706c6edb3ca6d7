// Presence (POST /users/me/presence, GET /users/{id}/presence, GET /realm/presence, register's
// `presences`): reports change the realm's in-memory presence table (never LMDB: the actor saves
// it coarsely), and coming online is announced as Zulip announces it (zerver/actions/presence.py).
import { errors } from '../../errors.js';
import { realmProperty } from '../../organization/settings.js';
import { legacyClientPresence, legacyPresence, modernPresence, presenceTiming, type LegacyPresence, type ModernPresence, type PresenceChange } from '../../users/presence.js';
import type { UserRecord } from '../../users/records.js';
import { userSetting } from '../../users/settings.js';
import { apiEmail } from '../../users/view.js';
import { liveCommand, readCommand, type CommandContext, type LiveContext, type ReadContext } from '../context.js';
import { accessibleUsers, accessorsOf, checkCanAccess } from './userAccess.js';

const DAY_SECONDS = 86_400;

/** Which presence data a client asks for (Zulip's get_presence_dict_by_realm). */
export interface PresenceQuery {
  /** Keys by user ID in the modern format; else by e-mail in the legacy one. */
  slim: boolean;
  /** Only what changed after this update ID; null or ≤ 0 with the history limit. */
  lastUpdateId: number | null;
  historyLimitDays: number | null;
}

const serverTimestamp = (ctx: ReadContext): number => ctx.config.clock.now() / 1000;

/** The realm's presence data as a client asks for it, and the newest update ID it includes. */
function realmPresences(ctx: ReadContext, query: PresenceQuery) {
  const presences: Record<string, ModernPresence | LegacyPresence> = {};
  if (realmProperty(ctx.state, 'presence_disabled')) return { presences, presence_last_update_id: -1 };
  const since = ctx.now - (query.historyLimitDays ?? presenceTiming.defaultHistoryDays) * DAY_SECONDS;
  const limitByTime = query.lastUpdateId === null || query.lastUpdateId <= 0;
  let newest: number | undefined;
  // A restricted guest hears only of the people they can see.
  const accessible = accessibleUsers(ctx, ctx.user);
  for (const [userId, record] of query.historyLimitDays === 0 ? [] : ctx.presence.entries()) {
    const user = ctx.state.users.get(userId);
    if (!user?.isActive || user.isBot || (accessible && !accessible.has(userId))) continue;
    if (query.lastUpdateId !== null && record.lastUpdateId <= query.lastUpdateId) continue;
    if (limitByTime && record.lastConnected < since) continue;
    if (query.slim) presences[String(userId)] = modernPresence(record, user);
    else presences[apiEmail(user, ctx.fakeEmailDomain)] = legacyPresence(record, user);
    newest = Math.max(newest ?? 0, record.lastUpdateId);
  }
  return { presences, presence_last_update_id: newest ?? query.lastUpdateId ?? -1 };
}

/** Tells the realm a user's presence changed: when they came online (in small realms only, as
 * Zulip does), or always when `force`d (presence_enabled turned on or off). */
function announce(ctx: LiveContext, user: UserRecord, change: PresenceChange, force: boolean): void {
  if (!force && (realmProperty(ctx.state, 'presence_disabled') || !(change.created || change.becameOnline) || ctx.activeUserIds().length > presenceTiming.eventUserLimit)) return;
  const everyone = accessorsOf(ctx, user);
  ctx.emit({ type: 'presence', presences: { [user.id]: modernPresence(change.record, user) } }, everyone, { capability: { name: 'simplified_presence_events', declared: true } });
  const presence = { website: legacyClientPresence(change.record, user) };
  ctx.emit({ type: 'presence', user_id: user.id, email: apiEmail(user, ctx.fakeEmailDomain), server_timestamp: serverTimestamp(ctx), presence }, everyone, { capability: { name: 'simplified_presence_events', declared: false } });
}

/** presence_enabled changed: on, the user is online at once; off, they appear to have gone offline
 * a little before (Zulip's do_change_user_setting). Announced to everyone either way. */
export function presenceEnabledChanged(ctx: CommandContext, user: UserRecord, enabled: boolean): void {
  if (!enabled) ctx.presence.forget(user.id);
  const change = enabled ? ctx.presence.report(user.id, ctx.now, true) : ctx.presence.report(user.id, ctx.now - presenceTiming.offlineThresholdSeconds - 120, false);
  announce(ctx, user, change, true);
}

export interface ReportInput extends PresenceQuery {
  status: 'active' | 'idle';
  pingOnly: boolean;
}

export const presenceCommands = {
  /** A client's report; users who turned presence_enabled off report nothing. */
  'presence.report': liveCommand((ctx, input: ReportInput) => {
    const user = ctx.user;
    if (userSetting(user, 'presence_enabled') === true) announce(ctx, user, ctx.presence.report(user.id, ctx.now, input.status === 'active'), false);
    if (input.pingOnly) return {};
    return { ...realmPresences(ctx, input), server_timestamp: serverTimestamp(ctx) };
  }),

  /** GET /realm/presence: everyone's, in the legacy format. */
  'presence.realm': readCommand((ctx) => {
    const { presences } = realmPresences(ctx, { slim: false, lastUpdateId: null, historyLimitDays: null });
    return { presences, server_timestamp: serverTimestamp(ctx) };
  }),

  /** GET /users/{user_id_or_email}/presence: one active human's, the aggregate "offline" when
   * they have not reported for a while. */
  'presence.ofUser': readCommand((ctx, input: { userIdOrEmail: string }) => {
    const target = /^\d+$/.test(input.userIdOrEmail) ? ctx.state.users.get(Number(input.userIdOrEmail)) : ctx.state.userByApiEmail(input.userIdOrEmail, ctx.fakeEmailDomain);
    if (!target?.isActive) throw errors.badRequest('No such user');
    if (target.isBot) throw errors.badRequest('Presence is not supported for bot users.');
    checkCanAccess(ctx, ctx.user, target);
    const record = ctx.presence.get(target.id);
    if (!record) throw errors.badRequest(`No presence data for ${input.userIdOrEmail}`);
    const { status, timestamp } = legacyClientPresence(record, target);
    const offline = ctx.now - timestamp > presenceTiming.offlineThresholdSeconds;
    return { presence: { aggregated: { status: offline ? 'offline' : status, timestamp }, website: { status, timestamp } } };
  }),
};

export const presenceInitialState = (ctx: ReadContext, query: Pick<PresenceQuery, 'slim' | 'historyLimitDays'>) => ({
  ...realmPresences(ctx, { ...query, lastUpdateId: null }),
  server_timestamp: serverTimestamp(ctx),
});
