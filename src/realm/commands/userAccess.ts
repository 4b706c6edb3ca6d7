// Who can see whom (Zulip's can_access_all_users_group): in an organization that limits it to
// members, a guest sees only bots, themselves, the active subscribers of their channels and the
// people they share a direct-message conversation with. Everyone else is an "Unknown user" to
// them: a placeholder in user lists (left out for clients that declare user_list_incomplete),
// "Insufficient permission" when asked for by ID, and no events about them. A guest who gains or
// loses access (a subscription, a first direct message) is told with realm_user add or remove.
import { errors } from '../../errors.js';
import { satisfies } from '../../groups/membership.js';
import { realmGroupSetting } from '../../organization/settings.js';
import { Role, type UserRecord } from '../../users/records.js';
import { INACCESSIBLE_USER_NAME, userView } from '../../users/view.js';
import type { CommandContext, ReadContext } from '../context.js';

type AccessContext = Pick<ReadContext, 'state' | 'store' | 'activeUserIds'>;

/** Whether the organization lets everyone see everyone (its default). */
function accessIsOpen(ctx: AccessContext): boolean {
  const setting = realmGroupSetting(ctx.state, 'can_access_all_users_group');
  return typeof setting === 'number' && ctx.state.systemGroupNames.get(setting) === 'role:everyone';
}

/** Whether the viewer sees only some users: a guest outside can_access_all_users_group. */
export const isRestricted = (ctx: AccessContext, viewer: UserRecord): boolean =>
  viewer.role === Role.guest && !accessIsOpen(ctx) && !satisfies(ctx.state, realmGroupSetting(ctx.state, 'can_access_all_users_group'), viewer);

/** The people a restricted viewer can see (bots aside, whom everyone sees): themselves, the active
 * subscribers of their channels, and everyone in a direct-message conversation with them. */
export function accessibleHumans(ctx: AccessContext, viewer: UserRecord): Set<number> {
  const ids = new Set([viewer.id]);
  for (const [channelId, subscriptions] of ctx.state.subscriptions) {
    if (subscriptions.get(viewer.id)?.active !== true) continue;
    for (const id of ctx.state.subscriberIds(channelId)) ids.add(id);
  }
  for (const recipientId of ctx.store.userMessages.conversations(viewer.id)) {
    if (ctx.state.channelByRecipient(recipientId)) continue;
    // Every message of a direct-message conversation has the same participants: the newest says.
    const newest = ctx.store.userMessages.conversationRange(viewer.id, recipientId, Number.MAX_SAFE_INTEGER, true).next();
    if (newest.done) continue;
    for (const id of ctx.store.messageHeader(newest.value[0])?.participants ?? []) ids.add(id);
  }
  return ids;
}

/** The users a viewer can see: undefined when that is everyone. */
export const accessibleUsers = (ctx: AccessContext, viewer: UserRecord): Set<number> | undefined => (isRestricted(ctx, viewer) ? accessibleHumans(ctx, viewer) : undefined);

/** Whether a viewer who sees the users `accessible` (undefined: everyone) sees `target`. */
export const sees = (accessible: ReadonlySet<number> | undefined, target: UserRecord): boolean => accessible === undefined || target.isBot || accessible.has(target.id);

/** Whether the viewer can see every one of these users. */
export function canAccessAll(ctx: AccessContext, viewer: UserRecord, targets: readonly UserRecord[]): boolean {
  const accessible = accessibleUsers(ctx, viewer);
  return targets.every((target) => sees(accessible, target));
}

/** Zulip's access_user_common: a user the requester cannot see is refused, not revealed. */
export function checkCanAccess(ctx: AccessContext, viewer: UserRecord, target: UserRecord): UserRecord {
  if (!canAccessAll(ctx, viewer, [target])) throw errors.badRequest('Insufficient permission');
  return target;
}

/** Every active user who can see `target`: who events about them go to. */
export function accessorsOf(ctx: AccessContext, target: UserRecord): number[] {
  if (target.isBot || accessIsOpen(ctx)) return ctx.activeUserIds();
  const ids: number[] = [];
  for (const viewer of ctx.state.users.values()) {
    if (viewer.isActive && (!isRestricted(ctx, viewer) || accessibleHumans(ctx, viewer).has(target.id))) ids.push(viewer.id);
  }
  return ids;
}

/** Active restricted guests among these users: whose access a change may move. */
export function restrictedAmong(ctx: AccessContext, userIds: Iterable<number>): UserRecord[] {
  if (accessIsOpen(ctx)) return [];
  const guests: UserRecord[] = [];
  for (const id of new Set(userIds)) {
    const user = ctx.state.users.get(id);
    if (user?.isActive && isRestricted(ctx, user)) guests.push(user);
  }
  return guests;
}

/** Users as a viewer lists them: those they cannot see as placeholders, or left out when the
 * client declared user_list_incomplete. */
export function listAs<T>(ctx: ReadContext, viewer: UserRecord, users: Iterable<UserRecord>, view: (user: UserRecord) => T, placeholder: (userId: number) => T, userListIncomplete: boolean): T[] {
  const accessible = accessibleUsers(ctx, viewer);
  const listed: T[] = [];
  for (const user of users) {
    if (sees(accessible, user)) listed.push(view(user));
    else if (!userListIncomplete) listed.push(placeholder(user.id));
  }
  return listed;
}

/** Runs a change that may move these guests' access (subscriptions, a first direct message), then
 * tells each what it gained (realm_user add, the user as they see them) ahead of the change's own
 * events, which may name the new people, and what it lost (realm_user remove) after them: Zulip's
 * events since feature level 228. */
export function withAccessChanges<T>(ctx: CommandContext, guests: UserRecord[], change: () => T): T {
  if (guests.length === 0) return change();
  const before = new Map(guests.map((guest) => [guest.id, accessibleHumans(ctx, guest)]));
  const start = ctx.emitted.length;
  const result = change();
  const own = ctx.emitted.splice(start);
  const lost: [UserRecord, number[]][] = [];
  for (const guest of guests) {
    const was = before.get(guest.id)!;
    const now = accessibleHumans(ctx, guest);
    for (const id of now) {
      const user = ctx.state.users.get(id);
      // Everyone sees bots all along: only people are announced.
      if (user && !user.isBot && !was.has(id)) ctx.emit({ type: 'realm_user', op: 'add', person: userView(user, guest, { fakeEmailDomain: ctx.fakeEmailDomain, clientGravatar: false, profileFields: ctx.state.profileFields }) }, [guest.id]);
    }
    lost.push([guest, [...was].filter((id) => !now.has(id) && ctx.state.users.get(id)?.isBot !== true)]);
  }
  ctx.emitted.push(...own);
  for (const [guest, ids] of lost) for (const id of ids) ctx.emit({ type: 'realm_user', op: 'remove', person: { user_id: id, full_name: INACCESSIBLE_USER_NAME } }, [guest.id]);
  return result;
}
