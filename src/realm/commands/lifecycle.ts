// Deactivating and reactivating users (spec endpoint 16; the user lifecycle machine).
import { channelObservers } from '../../channels/access.js';
import { errors, type ApiError } from '../../errors.js';
import { directSystemGroup } from '../../groups/records.js';
import { move } from '../../machines/lifecycle.js';
import { userLifecycle, type UserEvent } from '../../machines/user.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { avatarFields } from '../../users/avatars.js';
import { writeCommand, type CommandContext } from '../context.js';
import { announceBot } from './bots.js';
import { deleteMessages, messagesSentBy } from './deletion.js';
import { accessorsOf } from './userAccess.js';

export interface DeactivationActions {
  delete_profile?: boolean;
  delete_public_channel_messages?: boolean;
  delete_private_channel_messages?: boolean;
  delete_direct_messages?: boolean;
}


/** Announces a change of a user's active state: to those who can see them (`told`: as they were
 * before a deactivation, after a reactivation; Zulip's feature level 303), to the peers of each
 * channel, and to the members of its system group. */
function announceActivity(ctx: CommandContext, user: UserRecord, told: number[]): void {
  // A deactivated user's key already fails; their queues go once this is delivered, on every node.
  ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, is_active: user.isActive } }, told, user.isActive ? {} : { closesQueuesOf: [user.id] });
  const op = user.isActive ? 'peer_add' : 'peer_remove';
  for (const channel of ctx.state.channelsOf(user.id)) {
    const peers = channelObservers(ctx.state, channel).filter((peer) => peer.id !== user.id).map((peer) => peer.id);
    ctx.emit({ type: 'subscription', op, stream_ids: [channel.id], user_ids: [user.id] }, peers);
  }
  const group = directSystemGroup(user.role);
  if (group !== undefined) {
    const op = user.isActive ? 'add_members' : 'remove_members';
    ctx.emit({ type: 'user_group', op, group_id: ctx.state.systemGroup(group), user_ids: [user.id] }, ctx.activeUserIds());
  }
}

function deactivateOne(ctx: CommandContext, user: UserRecord, actions: DeactivationActions): void {
  deleteMessages(
    ctx,
    messagesSentBy(ctx, user.id, {
      publicChannels: actions.delete_public_channel_messages === true,
      privateChannels: actions.delete_private_channel_messages === true,
      direct: actions.delete_direct_messages === true,
    }),
  );
  let updated: UserRecord = { ...user, isActive: false };
  if (actions.delete_profile) {
    updated = { ...updated, fullName: `Deleted User ${user.id}`, avatarSource: 'G', avatarKey: undefined, avatarVersion: user.avatarVersion + 1, isDeleted: true };
  }
  // Who could see them: the active users but themselves, once deactivated.
  const everyone = accessorsOf(ctx, user).filter((id) => id !== user.id);
  ctx.save('user', updated);
  announceActivity(ctx, updated, everyone);
  announceBot(ctx, user, updated);
  if (actions.delete_profile) {
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, full_name: updated.fullName } }, everyone);
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, ...avatarFields(updated) } }, everyone);
    // The spec's is_deleted (Zulip's reference has no event for it).
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, is_deleted: true } }, everyone);
  }
}

/** The API's error for each refusal of the user lifecycle. */
const refusals: Record<string, (event: UserEvent) => ApiError> = {
  adminRequired: () => errors.adminRequired(),
  ownerRequired: () => errors.ownerRequired(),
  onlyOwner: () => errors.badRequest('Cannot deactivate the only organization owner'),
  state: (event) => (event.type === 'user.reactivate' ? errors.badRequest('User is already active') : errors.noSuchUser()),
};

function moveOrRefuse(target: UserRecord, event: UserEvent): void {
  const outcome = move(userLifecycle, target.isActive ? 'active' : 'deactivated', event);
  if ('refused' in outcome) throw refusals[outcome.refused]!(event);
}

/** Deactivates a user as the requester asks, if the lifecycle allows it: the bots they own first,
 * with the same deletion actions (spec: States and transitions), then the user. */
function deactivate(ctx: CommandContext, requester: UserRecord, target: UserRecord, actions: DeactivationActions): void {
  const activeOwners = [...ctx.state.users.values()].filter((user) => user.isActive && user.role === Role.owner);
  moveOrRefuse(target, {
    type: 'user.deactivate',
    requesterIsAdmin: isAdmin(requester),
    requesterIsSelf: requester.id === target.id,
    requesterIsOwner: requester.role === Role.owner,
    targetIsOwner: target.role === Role.owner,
    targetIsOnlyOwner: target.role === Role.owner && activeOwners.length === 1,
  });
  for (const bot of [...ctx.state.users.values()]) {
    if (bot.isBot && bot.isActive && bot.botOwnerId === target.id) deactivateOne(ctx, bot, actions);
  }
  deactivateOne(ctx, ctx.state.users.get(target.id)!, actions);
}

/** Deactivates a bot for its owner or an administrator (who administer it, in the lifecycle's
 * terms), through the same lifecycle as every user. */
export function deactivateBot(ctx: CommandContext, requester: UserRecord, bot: UserRecord): void {
  moveOrRefuse(bot, {
    type: 'user.deactivate',
    requesterIsAdmin: isAdmin(requester) || bot.botOwnerId === requester.id,
    requesterIsSelf: false,
    requesterIsOwner: requester.role === Role.owner,
    targetIsOwner: false,
    targetIsOnlyOwner: false,
  });
  deactivateOne(ctx, bot, {});
}

export const lifecycleCommands = {
  'users.deactivate': writeCommand((ctx, input: { userId: number; actions: DeactivationActions }) => {
    const target = ctx.state.users.get(input.userId);
    if (!target || target.isBot) throw errors.noSuchUser();
    deactivate(ctx, ctx.user, target, input.actions);
    return {};
  }),

  /** DELETE /users/me: a user leaves; never the organization's only user or only owner. */
  'users.deactivateSelf': writeCommand((ctx) => {
    const user = ctx.user;
    const active = [...ctx.state.users.values()].filter((other) => other.isActive);
    if (active.length === 1) throw errors.cannotDeactivateLastUser(false);
    if (user.role === Role.owner && active.filter((other) => other.role === Role.owner).length === 1) throw errors.cannotDeactivateLastUser(true);
    deactivate(ctx, user, user, {});
    return {};
  }),

  'users.reactivate': writeCommand((ctx, input: { userId: number }) => {
    const target = ctx.state.users.get(input.userId);
    if (!target) throw errors.noSuchUser();
    const event: UserEvent = { type: 'user.reactivate', requesterIsAdmin: isAdmin(ctx.user) };
    moveOrRefuse(target, event);
    const updated = { ...target, isActive: true };
    ctx.save('user', updated);
    announceActivity(ctx, updated, accessorsOf(ctx, updated));
    announceBot(ctx, target, updated);
    return {};
  }),
};
