// Who may see, read, join and add others to a channel. Organization administrators act as members
// of every channel's administer and remove-subscribers groups (spec: Authentication).
import { satisfies } from '../groups/membership.js';
import type { RealmView } from '../organization/state.js';
import { isAdmin, Role, type UserRecord } from '../users/records.js';
import type { ChannelPermission, ChannelRecord } from './records.js';

export function hasPermission(state: RealmView, channel: ChannelRecord, user: UserRecord, permission: ChannelPermission): boolean {
  if (isAdmin(user) && (permission === 'can_administer_channel_group' || permission === 'can_remove_subscribers_group')) return true;
  return satisfies(state, channel.permissions[permission], user);
}

const isPublic = (channel: ChannelRecord): boolean => !channel.inviteOnly;

/** May the user join (or be added to) the channel without already being in it? */
function mayJoin(state: RealmView, channel: ChannelRecord, user: UserRecord): boolean {
  return (
    hasPermission(state, channel, user, 'can_subscribe_group') ||
    hasPermission(state, channel, user, 'can_add_subscribers_group') ||
    hasPermission(state, channel, user, 'can_administer_channel_group')
  );
}

/** Metadata access: the channel shows in the user's channel list. */
export function canSeeChannel(state: RealmView, channel: ChannelRecord, user: UserRecord): boolean {
  if (state.isSubscribed(channel.id, user.id)) return true;
  if (isPublic(channel)) return user.role !== Role.guest || channel.isWebPublic;
  return isAdmin(user) || mayJoin(state, channel, user);
}

/** Content access: the user may read the channel's messages. */
export function canReadChannel(state: RealmView, channel: ChannelRecord, user: UserRecord): boolean {
  if (state.isSubscribed(channel.id, user.id)) return true;
  if (isPublic(channel)) return user.role !== Role.guest || channel.isWebPublic;
  return mayJoin(state, channel, user);
}

export function canSubscribeSelf(state: RealmView, channel: ChannelRecord, user: UserRecord): boolean {
  if (isPublic(channel) && user.role !== Role.guest) return true;
  return mayJoin(state, channel, user);
}

/** Adding other users: the channel's own groups, or the organization's can_add_subscribers_group
 * for a channel the user can read (level 349: no subscription needed for can_add_subscribers_group). */
export function canAddSubscribers(state: RealmView, channel: ChannelRecord, user: UserRecord): boolean {
  if (hasPermission(state, channel, user, 'can_add_subscribers_group') || hasPermission(state, channel, user, 'can_administer_channel_group')) return true;
  return canReadChannel(state, channel, user) && satisfies(state, state.realm.permissions.can_add_subscribers_group, user);
}

/** Who is told about a channel's subscribers: everyone who can see a public channel, otherwise its
 * subscribers and those with metadata access. */
export function channelObservers(state: RealmView, channel: ChannelRecord): UserRecord[] {
  return [...state.users.values()].filter((user) => user.isActive && canSeeChannel(state, channel, user));
}
