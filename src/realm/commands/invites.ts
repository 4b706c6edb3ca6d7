// Invitations: reusable links (create, list, revoke, and joining through one) and e-mail invitations
// (a link for one address, used once; sent by the handler through the mail transport, refused
// without one). Changes are announced as `invites_changed` to administrators and the invitation's
// creator.
import { canAddSubscribers } from '../../channels/access.js';
import { errors } from '../../errors.js';
import { satisfies } from '../../groups/membership.js';
import { realmUrl } from '../../organization/records.js';
import { realmGroupSetting, type RealmGroupSettingName } from '../../organization/settings.js';
import { INVITATION_LINK_VALIDITY_MINUTES, inviteUsable, inviteView, joinPath, newInviteKey, type InviteRecord } from '../../users/invites.js';
import { isAdmin, type Role, type UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { changeMembers, manageableGroup } from './userGroups.js';
import { addUser, checkNewUser, type NewUser } from './users.js';
import { greetNewUser } from './welcomeBot.js';

export interface InviteOptions {
  /** Minutes until it expires: undefined for the default, null for never. */
  expiresInMinutes: number | null | undefined;
  invitedAs: Role;
  channelIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  /** Welcome Bot's text for who joins by it: null for the organization's, '' for none. */
  welcomeText: string | null;
}

/** Stores a new invitation (for one address when `email` is given) and announces it. */
function saveInvite(ctx: CommandContext, inviter: UserRecord, input: InviteOptions, email?: string): InviteRecord {
  const minutes = input.expiresInMinutes === undefined ? INVITATION_LINK_VALIDITY_MINUTES : input.expiresInMinutes;
  const invite: InviteRecord = {
    id: ctx.store.nextId('invite'),
    realmId: ctx.state.realm.id,
    key: newInviteKey(),
    invitedBy: inviter.id,
    invited: ctx.now,
    expires: minutes === null ? null : ctx.now + minutes * 60,
    invitedAs: input.invitedAs,
    channelIds: input.channelIds,
    groupIds: input.groupIds,
    includeRealmDefaultSubscriptions: input.includeRealmDefaultSubscriptions,
    // Only administrators choose it (Zulip's); everyone else's invitations carry the organization's.
    ...(input.welcomeText !== null && isAdmin(inviter) ? { welcomeText: input.welcomeText } : {}),
    revoked: false,
    ...(email === undefined ? {} : { email }),
  };
  ctx.save('invite', invite);
  announce(ctx, invite);
  return invite;
}

/** What an e-mail invitation's handler needs to send it. */
export interface SentInvite {
  id: number;
  email: string;
  link: string;
  inviterName: string;
  realmName: string;
}

function sentInvite(ctx: ReadContext, invite: InviteRecord): SentInvite {
  return {
    id: invite.id,
    email: invite.email!,
    link: `${realmUrl(ctx.state.realm, ctx.config)}${joinPath(invite.key)}`,
    inviterName: ctx.state.users.get(invite.invitedBy)?.fullName ?? ctx.state.realm.name,
    realmName: ctx.state.realm.name,
  };
}

/** Zulip's e-mail check, loosely: something@something.tld without spaces. */
const isEmailAddress = (text: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254;

const invitesOf = (ctx: ReadContext): InviteRecord[] => [...ctx.store.invites.ofRealm(ctx.state.realm.id)];

/** Checks what every invitation asks for, as Zulip does: the permission, a role no higher than the
 * inviter's, channels they may add people to (or default channels), groups they manage. */
function checkInvite(ctx: ReadContext, permission: RealmGroupSettingName, options: InviteOptions): UserRecord {
  const inviter = ctx.user;
  if (!satisfies(ctx.state, realmGroupSetting(ctx.state, permission), inviter) || options.invitedAs < inviter.role) throw errors.insufficientRights();
  if (options.channelIds.length > 0 && !isAdmin(inviter) && !satisfies(ctx.state, realmGroupSetting(ctx.state, 'can_add_subscribers_group'), inviter)) throw errors.cannotSubscribeOthers();
  for (const id of options.channelIds) {
    const channel = ctx.state.channels.get(id);
    const allowed = channel && !channel.isArchived && (ctx.state.realm.defaultChannelIds.includes(id) || canAddSubscribers(ctx.state, channel, inviter));
    if (!allowed) throw errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`);
  }
  for (const id of options.groupIds) manageableGroup(ctx, id);
  if (options.expiresInMinutes !== undefined && options.expiresInMinutes !== null && options.expiresInMinutes <= 0) throw errors.badRequest('Invalid invite_expires_in_minutes');
  return inviter;
}

/** Administrators manage every invitation, others their own. */
const mayManage = (user: UserRecord, invite: InviteRecord): boolean => isAdmin(user) || invite.invitedBy === user.id;

function announce(ctx: CommandContext, invite: InviteRecord): void {
  const admins = ctx.activeUserIds().filter((id) => isAdmin(ctx.state.users.get(id)!));
  ctx.emit({ type: 'invites_changed' }, new Set([...admins, invite.invitedBy]));
}

export const inviteCommands = {
  'invites.createLink': writeCommand((ctx, input: InviteOptions) => {
    const invite = saveInvite(ctx, checkInvite(ctx, 'create_multiuse_invite_group', input), input);
    return { invite_link: `${realmUrl(ctx.state.realm, ctx.config)}${joinPath(invite.key)}` };
  }),

  'invites.list': readCommand((ctx) => {
    const url = realmUrl(ctx.state.realm, ctx.config);
    return invitesOf(ctx)
      .filter((invite) => inviteUsable(invite, ctx.now) && mayManage(ctx.user, invite))
      .map((invite) => inviteView(invite, url));
  }),

  /** Revokes a reusable link (DELETE /invites/multiuse/{id}) or an e-mail invitation (DELETE
   * /invites/{id}): each route only its own kind. */
  'invites.revoke': writeCommand((ctx, input: { id: number; email: boolean }) => {
    const invite = invitesOf(ctx).find((candidate) => candidate.id === input.id && (candidate.email !== undefined) === input.email);
    if (!invite || (!invite.revoked && !inviteUsable(invite, ctx.now))) throw errors.noSuchInvitation();
    if (!mayManage(ctx.user, invite)) throw errors.insufficientRights();
    if (invite.revoked) throw errors.invitationRevoked();
    ctx.save('invite', { ...invite, revoked: true });
    announce(ctx, invite);
    return {};
  }),

  /** E-mail invitations: checked in full (refused without a mail transport), one invitation per
   * address; the handler sends them once they are stored. */
  'invites.send': writeCommand((ctx, input: InviteOptions & { emails: string[] }) => {
    if (input.emails.length === 0) throw errors.noEmailAddresses();
    const inviter = checkInvite(ctx, 'can_invite_users_group', input);
    if (!ctx.config.mail) throw errors.emailInvitesUnavailable();
    const emails = [...new Set(input.emails)];
    if (!emails.every(isEmailAddress)) throw errors.badRequest("Some emails did not validate, so we didn't send any invitations.");
    const taken = emails.filter((email) => ctx.state.userByEmail(email) !== undefined);
    if (taken.length > 0) throw errors.badRequest(`${taken.join(', ')}: already in this organization, so we didn't send any invitations.`);
    return emails.map((email) => sentInvite(ctx, saveInvite(ctx, inviter, input, email)));
  }),

  /** An e-mail invitation to send again (POST /invites/{id}/resend). */
  'invites.resend': readCommand((ctx, input: { id: number }) => {
    const invite = invitesOf(ctx).find((candidate) => candidate.id === input.id && candidate.email !== undefined);
    if (!invite || !inviteUsable(invite, ctx.now)) throw errors.noSuchInvitation();
    if (!mayManage(ctx.user, invite)) throw errors.insufficientRights();
    if (!ctx.config.mail) throw errors.emailInvitesUnavailable();
    return sentInvite(ctx, invite);
  }),

  /** What the join page shows of a link, or why it cannot be used. */
  'invites.describe': readCommand((ctx, input: { key: string }) => {
    const invite = invitesOf(ctx).find((candidate) => candidate.key === input.key);
    if (!invite || !inviteUsable(invite, ctx.now)) throw errors.invitationNotUsable();
    return { realmName: ctx.state.realm.name, invitedAs: invite.invitedAs };
  }),

  /** Someone joins through a link: a new user with the link's role, channels and groups. */
  'invites.join': writeCommand((ctx, input: { key: string; user: Omit<NewUser, 'role'> }) => {
    const invite = invitesOf(ctx).find((candidate) => candidate.key === input.key);
    if (!invite || !inviteUsable(invite, ctx.now)) throw errors.invitationNotUsable();
    const newUser: NewUser = { ...input.user, role: invite.invitedAs };
    if (invite.email !== undefined && newUser.email.toLowerCase() !== invite.email.toLowerCase()) throw errors.badRequest(`This invitation is for ${invite.email}.`);
    checkNewUser(ctx, newUser);
    // An e-mail invitation is used once.
    if (invite.email !== undefined) ctx.save('invite', { ...invite, revoked: true });
    const channels = [...invite.channelIds, ...(invite.includeRealmDefaultSubscriptions ? ctx.state.realm.defaultChannelIds : [])];
    const user = addUser(ctx, newUser, channels);
    for (const id of invite.groupIds) {
      const group = ctx.state.groups.get(id);
      if (group && !group.deactivated) changeMembers(ctx, group, [user.id]);
    }
    greetNewUser(ctx, user, invite.welcomeText ?? null);
    return { userId: user.id, email: user.email };
  }),
};
