// User commands: reading users, storing new ones (userCreation.ts and invites.ts add them), and their API keys.
import { errors } from '../../errors.js';
import { newApiKey } from '../../users/apiKey.js';
import { EmailVisibility, Role, type UserRecord } from '../../users/records.js';
import { userAvatarUrl } from '../../users/avatars.js';
import { canSeeDeliveryEmail, inaccessibleUserView, userView, type UserView } from '../../users/view.js';
import { satisfies } from '../../groups/membership.js';
import { withRealmDefaults } from '../../users/settings.js';
import { realmGroupSetting, type RealmGroupSettingName } from '../../organization/settings.js';
import type { ZulipEvent } from '../../events/types.js';
import { directSystemGroup } from '../../groups/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { JsonArray, membersJson } from '../jsonFields.js';
import { checkFullName } from '../../users/names.js';
import { subscribeUsers } from './channels.js';
import { accessorsOf, checkCanAccess, listAs, restrictedAmong } from './userAccess.js';

const emailPattern = /^[^\s@]+@[^\s@]+$/;

export interface NewUser {
  email: string;
  fullName: string;
  role: Role;
  /** Hashed by the caller (hashing is slow and must not run inside a transaction). */
  passwordHash: string | null;
  timezone?: string;
}

/** Checks a new user's fields; throws the API error for the first that is wrong. */
export function checkNewUser(ctx: CommandContext, user: NewUser): void {
  if (!emailPattern.test(user.email)) throw errors.badRequest(`Invalid address '${user.email}'.`);
  if (ctx.state.userByEmail(user.email)) throw errors.badRequest('Email is already in use.');
  checkFullName(user.fullName);
}

/** Stores a user checked by checkNewUser; call inside a write command. */
export function insertUser(ctx: CommandContext, user: NewUser, bot: Pick<UserRecord, 'isBot' | 'botType' | 'botOwnerId'> = { isBot: false, botType: null, botOwnerId: null }): UserRecord {
  const record: UserRecord = {
    id: ctx.store.nextId('user'),
    realmId: ctx.state.realm.id,
    email: user.email,
    fullName: user.fullName.trim(),
    role: user.role,
    isActive: true,
    ...bot,
    apiKey: newApiKey(),
    passwordHash: user.passwordHash,
    dateCreated: ctx.now,
    firstLogin: null,
    timezone: user.timezone ?? '',
    avatarSource: 'G',
    avatarVersion: 1,
    isImportedStub: false,
    isDeleted: false,
    emailAddressVisibility: EmailVisibility.everyone,
  };
  ctx.save('user', withRealmDefaults(record, ctx.state.realm.userSettingDefaults));
  return record;
}

/** Adds a user checked by checkNewUser, tells everyone, and subscribes them to these channels. */
export function addUser(ctx: CommandContext, input: NewUser, channelIds: Iterable<number>): UserRecord {
  const user = insertUser(ctx, input);
  announceNewUser(ctx, user);
  emitSystemGroupJoin(ctx, user);
  for (const channelId of new Set(channelIds)) {
    const channel = ctx.state.channels.get(channelId);
    if (channel && !channel.isArchived) subscribeUsers(ctx, channel, [user]);
  }
  return user;
}

export interface UserViewOptions {
  clientGravatar: boolean;
  /** Include profile_data (custom profile fields) for users who are not bots. */
  includeProfile?: boolean;
}

/** A user as the acting user (or another viewer) sees them. */
export const viewAs = (ctx: ReadContext, target: UserRecord, options: UserViewOptions, viewer: UserRecord = ctx.user): UserView =>
  userView(target, viewer, {
    fakeEmailDomain: ctx.fakeEmailDomain,
    clientGravatar: options.clientGravatar,
    ...(options.includeProfile ? { profileFields: ctx.state.profileFields } : {}),
  });

/** Tells everyone of a new user or bot: those who cannot see it (a restricted guest) get Zulip's
 * "Unknown user" placeholder, unless their client declared user_list_incomplete. */
export function announceNewUser(ctx: CommandContext, user: UserRecord): void {
  const accessors = emitUserEvent(ctx, user, (person) => ({ type: 'realm_user', op: 'add', person }));
  const others = restrictedAmong(ctx, ctx.activeUserIds()).filter((guest) => !accessors.has(guest.id));
  if (others.length === 0) return;
  ctx.emit({ type: 'realm_user', op: 'add', person: inaccessibleUserView(user.id, ctx.fakeEmailDomain) }, others.map((guest) => guest.id), { capability: { name: 'user_list_incomplete', declared: false } });
}

/** Emits an event carrying `target`'s User object to every active user who can see them: one
 * variant for those who may see the real e-mail and one for those who may not, each built once.
 * Events use client_gravatar=false, as Zulip's do. Answers who was told. */
export function emitUserEvent(ctx: CommandContext, target: UserRecord, build: (person: UserView) => ZulipEvent): Set<number> {
  const variants = new Map<boolean, { event: ZulipEvent; userIds: number[] }>();
  const accessors = new Set(accessorsOf(ctx, target));
  for (const viewerId of accessors) {
    const viewer = ctx.state.users.get(viewerId)!;
    const visible = canSeeDeliveryEmail(target, viewer);
    let variant = variants.get(visible);
    if (!variant) {
      variant = { event: build(viewAs(ctx, target, { clientGravatar: false, includeProfile: true }, viewer)), userIds: [] };
      variants.set(visible, variant);
    }
    variant.userIds.push(viewer.id);
  }
  for (const { event, userIds } of variants.values()) ctx.emit(event, userIds);
  return accessors;
}

/** A user's role makes it a direct member of one system group; tell everyone, as Zulip does. */
export function emitSystemGroupJoin(ctx: CommandContext, user: UserRecord): void {
  const name = directSystemGroup(user.role);
  if (name === undefined) return;
  const everyone = ctx.activeUserIds();
  ctx.emit({ type: 'user_group', op: 'add_members', group_id: ctx.state.systemGroup(name), user_ids: [user.id] }, everyone);
}

/** A user's entry in user lists (register's, GET /users), as JSON: derived once per state version
 * (the view's parts — the user, the realm, the profile fields — change only by saves, each of which
 * moves it) for each e-mail visibility, client_gravatar and profile data, since the view depends on
 * the viewer only through the first. A register in a realm of 1,000 users made and encoded every
 * entry again. */
function listedUserJson(ctx: ReadContext, user: UserRecord, viewer: UserRecord, options: UserViewOptions): string {
  const key = user.id * 8 + (canSeeDeliveryEmail(user, viewer) ? 4 : 0) + (options.clientGravatar ? 2 : 0) + (options.includeProfile ? 1 : 0);
  return ctx.state.listedUserJson.get(key, () => JSON.stringify(viewAs(ctx, user, options, viewer)));
}

/** Users as the viewer lists them (`listAs`), each entry as JSON, with whether it counts as active
 * (a placeholder does). */
function listedUsers(ctx: ReadContext, viewer: UserRecord, options: UserViewOptions, userListIncomplete: boolean): { active: boolean; json: string }[] {
  return listAs(
    ctx,
    viewer,
    ctx.state.users.values(),
    (user) => ({ active: user.isActive, json: listedUserJson(ctx, user, viewer, options) }),
    (userId) => ({ active: true, json: JSON.stringify(inaccessibleUserView(userId, ctx.fakeEmailDomain)) }),
    userListIncomplete,
  );
}

/** The `realm_user` part of register: every user as the requester sees them, and the requester. */
export function usersInitialState(ctx: ReadContext, options: UserViewOptions & { userListIncomplete: boolean }) {
  const me = ctx.user;
  // As in Zulip, register's users carry their custom profile data.
  const listed = listedUsers(ctx, me, { ...options, includeProfile: true }, options.userListIncomplete);
  const list = (active: boolean) => new JsonArray<UserView>(listed.flatMap((entry) => (entry.active === active ? [entry.json] : [])));
  // As in Zulip, the user's own avatar is always a URL, whatever client_gravatar says.
  const own = viewAs(ctx, me, { clientGravatar: false });
  const may = (name: RealmGroupSettingName) => satisfies(ctx.state, realmGroupSetting(ctx.state, name), me);
  return {
    realm_users: list(true),
    realm_non_active_users: list(false),
    cross_realm_bots: [],
    user_id: me.id,
    email: own.email,
    delivery_email: me.email,
    full_name: me.fullName,
    is_owner: own.is_owner,
    is_admin: own.is_admin,
    is_moderator: me.role === Role.moderator,
    is_guest: own.is_guest,
    avatar_source: me.avatarSource,
    avatar_url: own.avatar_url,
    avatar_url_medium: userAvatarUrl(me, true),
    can_create_public_streams: may('can_create_public_channel_group'),
    can_create_private_streams: may('can_create_private_channel_group'),
    can_create_web_public_streams: ctx.config.webPublicStreamsEnabled && may('can_create_web_public_channel_group'),
    can_create_streams: may('can_create_public_channel_group') || may('can_create_private_channel_group'),
    can_subscribe_other_users: may('can_add_subscribers_group'),
    can_invite_others_to_realm: may('can_invite_users_group'),
  };
}

export const userCommands = {
  /** Zulip's GET /users/me: always the avatar's URL (client_gravatar does not apply to oneself),
   * the profile, and the newest message the user has. */
  'users.me': readCommand((ctx) => {
    const user = ctx.user;
    // The object's fields without its braces, derived once per state version (the view's parts —
    // the user, the realm, the profile fields — change only by saves, each of which moves it).
    const fields = ctx.state.ownUserJson.get(user.id, () => membersJson(viewAs(ctx, user, { clientGravatar: false, includeProfile: true })));
    return { userFields: fields, maxMessageId: ctx.store.userMessages.newest(user.id) };
  }),

  /** GET /users: answered as JSON where the realm runs (a fields command). */
  'users.list': readCommand((ctx, options: UserViewOptions) => ({ members: new JsonArray<UserView>(listedUsers(ctx, ctx.user, options, false).map((entry) => entry.json)) })),

  /** By ID, by real e-mail (only when the requester may see it), or by the dummy address. */
  'users.get': readCommand((ctx, input: UserViewOptions & { userId?: number; email?: string }) => {
    let user: UserRecord | undefined;
    if (input.userId !== undefined) user = ctx.state.users.get(input.userId);
    else if (input.email !== undefined) {
      const byEmail = ctx.state.userByEmail(input.email);
      if (byEmail) user = canSeeDeliveryEmail(byEmail, ctx.user) ? byEmail : undefined;
      else user = ctx.state.userByApiEmail(input.email, ctx.fakeEmailDomain);
    }
    if (!user) throw errors.noSuchUser();
    return viewAs(ctx, checkCanAccess(ctx, ctx.user, user), input);
  }),

  'users.apiKey': readCommand((ctx, input: { email: string }) => {
    const user = ctx.state.userByEmail(input.email);
    if (!user) throw errors.noSuchUser();
    return { userId: user.id, apiKey: user.apiKey };
  }),

  'users.regenerateApiKey': writeCommand((ctx, input: { userId: number }) => {
    const user = ctx.state.users.get(input.userId);
    if (!user) throw errors.noSuchUser();
    const updated = { ...user, apiKey: newApiKey() };
    ctx.save('user', updated);
    return { userId: updated.id, apiKey: updated.apiKey };
  }),
};
