// User commands: reading users, creating them, and their API keys.
import { errors } from '../../errors.js';
import { newApiKey } from '../../users/apiKey.js';
import { EmailVisibility, isAdmin, Role, type UserRecord } from '../../users/records.js';
import { canSeeDeliveryEmail, userView, type UserView } from '../../users/view.js';
import type { ZulipEvent } from '../../events/types.js';
import { systemGroupOrder, systemGroups } from '../../groups/records.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';

export const MAX_FULL_NAME_LENGTH = 100;
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
  const name = user.fullName.trim();
  if (name === '') throw errors.badRequest('Name too short!');
  if ([...name].length > MAX_FULL_NAME_LENGTH) throw errors.badRequest('Name too long!');
}

/** Stores a user checked by checkNewUser; call inside a write command. */
export function insertUser(ctx: CommandContext, user: NewUser): UserRecord {
  const record: UserRecord = {
    id: ctx.store.nextId('user'),
    realmId: ctx.state.realm.id,
    email: user.email,
    fullName: user.fullName.trim(),
    role: user.role,
    isActive: true,
    isBot: false,
    botType: null,
    botOwnerId: null,
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
  ctx.saveUser(record);
  return record;
}

export interface UserViewOptions {
  clientGravatar: boolean;
}

export const viewAs = (ctx: CommandContext, target: UserRecord, options: UserViewOptions): UserView =>
  userView(target, ctx.actor, { fakeEmailDomain: ctx.fakeEmailDomain, clientGravatar: options.clientGravatar });

/** Emits an event carrying `target`'s User object to every active user of the realm: one variant
 * for those who may see the real e-mail and one for those who may not, each built once. Events
 * use client_gravatar=false, as Zulip's do. */
export function emitUserEvent(ctx: CommandContext, target: UserRecord, build: (person: UserView) => ZulipEvent): void {
  const variants = new Map<boolean, { event: ZulipEvent; userIds: number[] }>();
  for (const viewer of ctx.state.users.values()) {
    if (!viewer.isActive) continue;
    const visible = canSeeDeliveryEmail(target, viewer);
    let variant = variants.get(visible);
    if (!variant) {
      variant = { event: build(userView(target, viewer, { fakeEmailDomain: ctx.fakeEmailDomain, clientGravatar: false })), userIds: [] };
      variants.set(visible, variant);
    }
    variant.userIds.push(viewer.id);
  }
  for (const { event, userIds } of variants.values()) ctx.emit(event, userIds);
}

/** A user's role makes it a direct member of one system group; tell everyone, as Zulip does. */
export function emitSystemGroupJoin(ctx: CommandContext, user: UserRecord): void {
  const name = systemGroupOrder.find((candidate) => systemGroups[candidate].directRoles.includes(user.role));
  if (name === undefined) return;
  const everyone = [...ctx.state.users.values()].filter((viewer) => viewer.isActive).map((viewer) => viewer.id);
  ctx.emit({ type: 'user_group', op: 'add_members', group_id: ctx.state.systemGroup(name), user_ids: [user.id] }, everyone);
}

/** The `realm_user` part of register: every user as the requester sees them, and the requester. */
export function usersInitialState(ctx: CommandContext, options: UserViewOptions) {
  const me = ctx.actor;
  const active: UserView[] = [];
  const inactive: UserView[] = [];
  for (const user of ctx.state.users.values()) (user.isActive ? active : inactive).push(viewAs(ctx, user, options));
  const own = viewAs(ctx, me, options);
  return {
    realm_users: active,
    realm_non_active_users: inactive,
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
    avatar_url_medium: own.avatar_url,
  };
}

export const userCommands = {
  'users.me': readCommand((ctx, options: UserViewOptions) => viewAs(ctx, ctx.actor, options)),

  /** Creates a user. Without an acting user (the management CLI, the demo seed) no rights apply;
   * through the API only administrators may, and only owners may create owners. */
  'users.create': writeCommand((ctx, input: NewUser) => {
    if (ctx.hasActor && input.role === Role.owner && ctx.actor.role !== Role.owner) throw errors.ownerRequired();
    if (ctx.hasActor && !isAdmin(ctx.actor)) throw errors.adminRequired();
    checkNewUser(ctx, input);
    const user = insertUser(ctx, input);
    emitUserEvent(ctx, user, (person) => ({ type: 'realm_user', op: 'add', person }));
    emitSystemGroupJoin(ctx, user);
    return { userId: user.id, apiKey: user.apiKey };
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
    ctx.saveUser(updated);
    return { userId: updated.id, apiKey: updated.apiKey };
  }),
};
