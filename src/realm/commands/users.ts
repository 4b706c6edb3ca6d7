// User commands: reading users, creating them, and their API keys.
import { errors } from '../../errors.js';
import { newApiKey } from '../../users/apiKey.js';
import { EmailVisibility, isAdmin, Role, type UserRecord } from '../../users/records.js';
import { userView, type UserView } from '../../users/view.js';
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

export const userCommands = {
  'users.me': readCommand((ctx, options: UserViewOptions) => viewAs(ctx, ctx.actor, options)),

  /** Creates a user. Without an acting user (the management CLI, the demo seed) no rights apply;
   * through the API only administrators may, and only owners may create owners. */
  'users.create': writeCommand((ctx, input: NewUser) => {
    if (ctx.hasActor && input.role === Role.owner && ctx.actor.role !== Role.owner) throw errors.ownerRequired();
    if (ctx.hasActor && !isAdmin(ctx.actor)) throw errors.adminRequired();
    checkNewUser(ctx, input);
    const user = insertUser(ctx, input);
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
