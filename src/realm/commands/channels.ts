// Channel commands: creating channels, subscribing users, reading channels and subscriptions,
// and their part of register's initial state.
import { canAddSubscribers, canReadChannel, canSeeChannel, canSubscribeSelf, channelObservers, hasPermission } from '../../channels/access.js';
import { channelPermissionDefaults, channelPermissions, subscriptionColors, type ChannelPermission, type ChannelRecord, type SubscriptionRecord, type TopicsPolicy } from '../../channels/records.js';
import { channelView, subscriptionSettings, subscriptionView, type ChannelView } from '../../channels/view.js';
import { errors } from '../../errors.js';
import { satisfies } from '../../groups/membership.js';
import type { GroupSetting, SystemGroupName } from '../../groups/records.js';
import { renderMarkdown } from '../../markdown/index.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { userSetting } from '../../users/settings.js';
import type { UserSettingName } from '../../users/settingDefinitions.js';
import { JsonArray, membersJson } from '../jsonFields.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { usableFolder } from './folders.js';
import { checkGroupSetting } from './groupSettingChange.js';
import type { RealmView } from '../../organization/state.js';
import { limits } from './limits.js';
import { sendMessage } from './messages.js';
import { checkCanAccess, restrictedAmong, withAccessChanges } from './userAccess.js';

type Subscription = ReturnType<typeof subscriptionView>;

export const channelViewOf = (state: RealmView, channel: ChannelRecord): ChannelView =>
  channelView(channel, state.subscriberIds(channel.id).length, state.systemGroupNames);

const systemSetting = (state: RealmView, name: SystemGroupName): GroupSetting => state.systemGroup(name);

export function checkChannelName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw errors.badRequest('Channel name can\'t be empty.');
  if ([...trimmed].length > limits.max_stream_name_length) {
    throw errors.badRequest(`Channel name too long (limit: ${limits.max_stream_name_length} characters).`);
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) throw errors.badRequest('Invalid character in channel name, at position 1.');
  return trimmed;
}

export function checkDescription(description: string): string {
  if ([...description].length > limits.max_stream_description_length) {
    throw errors.badRequest(`Channel description too long (limit: ${limits.max_stream_description_length} characters).`);
  }
  return description.replace(/\n/g, ' ');
}

export interface NewChannel {
  name: string;
  description: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean | null;
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  permissions: Partial<Record<ChannelPermission, GroupSetting>>;
  /** A folder to create it in (POST /channels/create). */
  folderId?: number | null;
}

function defaultPermissions(state: RealmView, creator: UserRecord | null): Record<ChannelPermission, GroupSetting> {
  const value = (name: SystemGroupName | 'stream_creator_or_nobody'): GroupSetting =>
    name !== 'stream_creator_or_nobody' ? systemSetting(state, name) : creator ? { direct_members: [creator.id], direct_subgroups: [] } : systemSetting(state, 'role:nobody');
  return Object.fromEntries(channelPermissions.map((permission) => [permission, value(channelPermissionDefaults[permission])])) as Record<ChannelPermission, GroupSetting>;
}

/** Checks that `creator` may create such a channel (null: the system itself). */
function checkMayCreate(ctx: CommandContext, creator: UserRecord | null, channel: NewChannel): void {
  if (!creator) return;
  const { permissions } = ctx.state.realm;
  const setting = channel.inviteOnly ? permissions.can_create_private_channel_group : permissions.can_create_public_channel_group;
  if (creator.role === Role.guest || !satisfies(ctx.state, setting, creator)) throw errors.insufficientRights();
  if (channel.isWebPublic) {
    if (!ctx.config.webPublicStreamsEnabled) throw errors.badRequest('Web-public channels are not enabled.');
    if (!ctx.state.realm.enableSpectatorAccess) throw errors.badRequest('Web-public channels are not enabled.');
    if (!satisfies(ctx.state, permissions.can_create_web_public_channel_group, creator)) throw errors.insufficientRights();
  }
  if (channel.messageRetentionDays !== null && creator.role !== Role.owner) throw errors.ownerRequired();
}

/** Creates a channel and announces it to everyone who may see it and to the users about to be
 * subscribed to it (their subscription events follow); call inside a write command. */
export function createChannel(ctx: CommandContext, creator: UserRecord | null, spec: NewChannel, subscribersToBe: UserRecord[]): ChannelRecord {
  const name = checkChannelName(spec.name);
  if (ctx.state.channelByName(name)) throw errors.badRequest(`Channel '${name}' already exists`);
  checkMayCreate(ctx, creator, spec);
  const description = checkDescription(spec.description);
  const permissions = { ...defaultPermissions(ctx.state, creator) };
  for (const [key, value] of Object.entries(spec.permissions) as [ChannelPermission, GroupSetting][]) permissions[key] = checkGroupSetting(ctx.state, value);
  const folderId = spec.folderId == null ? null : usableFolder(ctx, spec.folderId).id;
  const channel: ChannelRecord = {
    id: ctx.store.nextId('channel'),
    realmId: ctx.state.realm.id,
    recipientId: ctx.store.nextId('recipient'),
    name,
    description,
    renderedDescription: renderMarkdown(description),
    dateCreated: ctx.now,
    creatorId: creator?.id ?? null,
    inviteOnly: spec.inviteOnly,
    isWebPublic: spec.isWebPublic,
    // Public channels always share history; private ones only when asked (Zulip's default).
    historyPublicToSubscribers: !spec.inviteOnly || (spec.historyPublicToSubscribers ?? false),
    messageRetentionDays: spec.messageRetentionDays,
    topicsPolicy: spec.topicsPolicy,
    folderId,
    isArchived: false,
    firstMessageId: null,
    isRecentlyActive: true,
    permissions,
  };
  ctx.save('channel', channel);
  const told = new Set([...channelObservers(ctx.state, channel), ...subscribersToBe].map((user) => user.id));
  ctx.emit({ type: 'stream', op: 'create', streams: [channelViewOf(ctx.state, channel)] }, told);
  return channel;
}

/** Subscribes users (already checked) to a channel, with Zulip's events: `subscription add` to each
 * new subscriber and `peer_add` to everyone else who can see the channel's subscribers. */
export function subscribeUsers(ctx: CommandContext, channel: ChannelRecord, users: UserRecord[]): UserRecord[] {
  const added = users.filter((user) => !ctx.state.isSubscribed(channel.id, user.id));
  if (added.length === 0) return added;
  // Guests in the channel now see the new subscribers; new guests see everyone in it.
  const guests = restrictedAmong(ctx, [...ctx.state.subscriberIds(channel.id), ...added.map((user) => user.id)]);
  withAccessChanges(ctx, guests, () => saveSubscriptions(ctx, channel, added));
  return added;
}

function saveSubscriptions(ctx: CommandContext, channel: ChannelRecord, added: UserRecord[]): void {
  for (const user of added) {
    const previous = ctx.state.subscription(channel.id, user.id);
    const subscription: SubscriptionRecord = previous
      ? { ...previous, active: true }
      : {
          realmId: channel.realmId,
          channelId: channel.id,
          userId: user.id,
          active: true,
          color: subscriptionColors[channel.id % subscriptionColors.length]!,
          isMuted: false,
          pinToTop: false,
          desktopNotifications: null,
          audibleNotifications: null,
          pushNotifications: null,
          emailNotifications: null,
          wildcardMentionsNotify: null,
        };
    ctx.save('subscription', subscription);
  }
  const view = channelViewOf(ctx.state, channel);
  const subscribers = ctx.state.subscriberIds(channel.id);
  for (const user of added) {
    ctx.emit({ type: 'subscription', op: 'add', subscriptions: [subscriptionView(view, ctx.state.subscription(channel.id, user.id)!, subscribers)] }, [user.id]);
  }
  const addedIds = new Set(added.map((user) => user.id));
  const peers = channelObservers(ctx.state, channel).filter((user) => !addedIds.has(user.id)).map((user) => user.id);
  ctx.emit({ type: 'subscription', op: 'peer_add', stream_ids: [channel.id], user_ids: [...addedIds] }, peers);
}

/** Unsubscribes users (already checked): `subscription remove` to each, `peer_remove` to the
 * others who can see the channel, and `stream delete` to those who can no longer see it. */
export function unsubscribeUsers(ctx: CommandContext, channel: ChannelRecord, users: UserRecord[]): UserRecord[] {
  const removed = users.filter((user) => ctx.state.isSubscribed(channel.id, user.id));
  if (removed.length === 0) return removed;
  // Guests in the channel may lose sight of those leaving, and guests leaving of those staying.
  withAccessChanges(ctx, restrictedAmong(ctx, ctx.state.subscriberIds(channel.id)), () => endSubscriptions(ctx, channel, removed));
  return removed;
}

function endSubscriptions(ctx: CommandContext, channel: ChannelRecord, removed: UserRecord[]): void {
  const observersBefore = channelObservers(ctx.state, channel);
  for (const user of removed) {
    const subscription = { ...ctx.state.subscription(channel.id, user.id)!, active: false };
    ctx.save('subscription', subscription);
  }
  const removedIds = new Set(removed.map((user) => user.id));
  for (const user of removed) ctx.emit({ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: channel.id, name: channel.name }] }, [user.id]);
  const peers = observersBefore.filter((user) => !removedIds.has(user.id)).map((user) => user.id);
  ctx.emit({ type: 'subscription', op: 'peer_remove', stream_ids: [channel.id], user_ids: [...removedIds] }, peers);
  const lostSight = removed.filter((user) => !canSeeChannel(ctx.state, channel, user)).map((user) => user.id);
  if (lostSight.length > 0) {
    ctx.emit({ type: 'stream', op: 'delete', streams: [{ stream_id: channel.id }], stream_ids: [channel.id] }, lostSight);
  }
}

export interface ChannelListInput {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
  includeAllActive: boolean;
}

export interface SubscribeInput {
  subscriptions: { name: string; description?: string }[];
  principals: (string | number)[] | null;
  authorizationErrorsFatal: boolean;
  newChannel: Omit<NewChannel, 'name' | 'description'>;
  isDefaultStream: boolean;
  /** Have the notification bot announce the new public channels. */
  announce: boolean;
}

/** Zulip's announcement of a new channel, by the notification bot, if the realm has a place for it. */
function announceChannel(ctx: CommandContext, creator: UserRecord, channel: ChannelRecord): void {
  const { newChannelAnnouncementsChannelId: target, notificationBotId } = ctx.state.realm;
  const bot = notificationBotId === null ? undefined : ctx.state.users.get(notificationBotId);
  if (target === null || !bot || channel.inviteOnly) return;
  sendMessage(ctx, bot, {
    type: 'stream',
    to: [target],
    topic: 'new channels',
    content: `@_**${creator.fullName}|${creator.id}** created a new channel #**${channel.name}**.`,
    readBySender: true,
    client: 'Internal',
  });
}

function resolvePrincipal(ctx: CommandContext, principal: string | number): UserRecord {
  const user = typeof principal === 'number' ? ctx.state.users.get(principal) : ctx.state.userByEmail(principal);
  // Feature level 208: an unknown or deactivated principal is a 400 BAD_REQUEST.
  if (!user || !user.isActive) throw errors.badRequest(typeof principal === 'number' ? `Invalid user ID ${principal}` : `No such user`);
  return user;
}

const bySubscriber = (entries: [UserRecord, string][]): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const [user, name] of entries) (out[String(user.id)] ??= []).push(name);
  return out;
};

/** Zulip's check of a subscription request: who is to be subscribed, to which existing channels
 * (those refused listed, or fatal), and which channels are to be created. Nothing is written. */
function checkSubscribe(ctx: CommandContext, input: SubscribeInput) {
  const requester = ctx.user;
  const principals = input.principals === null ? [requester] : input.principals.map((principal) => resolvePrincipal(ctx, principal));
  const onlySelf = principals.every((user) => user.id === requester.id);
  const existing: ChannelRecord[] = [];
  const unauthorized: string[] = [];
  const toCreate: NewChannel[] = [];
  for (const requested of input.subscriptions) {
    const name = checkChannelName(requested.name);
    const channel = ctx.state.channelByName(name);
    if (!channel) {
      toCreate.push({ ...input.newChannel, name, description: requested.description ?? '' });
      continue;
    }
    const allowed = !channel.isArchived && (onlySelf ? canSubscribeSelf(ctx.state, channel, requester) : canAddSubscribers(ctx.state, channel, requester));
    if (allowed) existing.push(channel);
    else if (input.authorizationErrorsFatal) throw errors.badRequest(`Unable to access channel (${channel.name}).`);
    else unauthorized.push(channel.name);
  }
  if (toCreate.length > 0) checkNewChannelOptions(ctx, requester, onlySelf, input.isDefaultStream);
  for (const spec of toCreate) checkMayCreate(ctx, requester, spec);
  return { requester, principals, existing, unauthorized, toCreate };
}

/** What creating channels for others, or as default channels, needs beyond creating them. */
function checkNewChannelOptions(ctx: CommandContext, requester: UserRecord, onlySelf: boolean, isDefaultStream: boolean): void {
  if (!onlySelf && !satisfies(ctx.state, ctx.state.realm.permissions.can_add_subscribers_group, requester) && !isAdmin(requester)) {
    throw errors.insufficientRights();
  }
  if (isDefaultStream && !isAdmin(requester)) throw errors.adminRequired();
}

/** After channels are created: made default channels and announced, as the request asked. */
function settleCreated(ctx: CommandContext, requester: UserRecord, created: ChannelRecord[], options: { isDefaultStream: boolean; announce: boolean }): void {
  if (options.isDefaultStream && created.length > 0) {
    ctx.saveRealm({ defaultChannelIds: [...ctx.state.realm.defaultChannelIds, ...created.map((channel) => channel.id)] });
  }
  if (options.announce) for (const channel of created) announceChannel(ctx, requester, channel);
}

export interface UnsubscribeInput {
  names: string[];
  principals: (string | number)[] | null;
}

export interface CreateChannelInput {
  channel: NewChannel;
  subscribers: number[];
  isDefaultStream: boolean;
  announce: boolean;
}

/** Subscribes users to channels, creating the missing ones (POST /users/me/subscriptions). */
function addSubscriptions(ctx: CommandContext, input: SubscribeInput) {
  const plan = checkSubscribe(ctx, input);
  const { requester, principals } = plan;
  const created = plan.toCreate.map((spec) => createChannel(ctx, requester, spec, principals));
  settleCreated(ctx, requester, created, input);
  const subscribed: [UserRecord, string][] = [];
  const already: [UserRecord, string][] = [];
  for (const channel of [...created, ...plan.existing]) {
    const added = new Set(subscribeUsers(ctx, channel, principals).map((user) => user.id));
    for (const user of principals) (added.has(user.id) ? subscribed : already).push([user, channel.name]);
  }
  return {
    subscribed: bySubscriber(subscribed),
    already_subscribed: bySubscriber(already),
    ...(input.authorizationErrorsFatal ? {} : { unauthorized: plan.unauthorized }),
  };
}

/** Unsubscribes users from channels (DELETE /users/me/subscriptions). */
function removeSubscriptions(ctx: CommandContext, input: UnsubscribeInput) {
  const requester = ctx.user;
  const principals = input.principals === null ? [requester] : input.principals.map((principal) => resolvePrincipal(ctx, principal));
  const onlySelf = principals.every((user) => user.id === requester.id);
  const channels = input.names.map((name) => {
    const channel = ctx.state.channelByName(name);
    if (!channel || !canSeeChannel(ctx.state, channel, requester)) throw errors.badRequest(`Channel '${name}' does not exist`);
    if (!onlySelf && !hasPermission(ctx.state, channel, requester, 'can_remove_subscribers_group')) throw errors.insufficientRights();
    return channel;
  });
  const removed: string[] = [];
  const notRemoved: string[] = [];
  for (const channel of channels) {
    const done = new Set(unsubscribeUsers(ctx, channel, principals).map((user) => user.id));
    for (const user of principals) (done.has(user.id) ? removed : notRemoved).push(channel.name);
  }
  return { removed, not_removed: notRemoved };
}

export const channelCommands = {
  'subscriptions.add': writeCommand(addSubscriptions),

  /** POST /channels/create (feature level 417): one new channel, with the users named subscribed;
   * an existing name is Zulip's 409 CHANNEL_ALREADY_EXISTS. */
  'channels.create': writeCommand((ctx, input: CreateChannelInput) => {
    const requester = ctx.user;
    const name = checkChannelName(input.channel.name);
    if (ctx.state.channelByName(name)) throw errors.channelAlreadyExists(name);
    const subscribers = input.subscribers.map((id) => resolvePrincipal(ctx, id));
    checkNewChannelOptions(ctx, requester, subscribers.every((user) => user.id === requester.id), input.isDefaultStream);
    const channel = createChannel(ctx, requester, { ...input.channel, name }, subscribers);
    settleCreated(ctx, requester, [channel], input);
    subscribeUsers(ctx, channel, subscribers);
    return { id: channel.id };
  }),

  'channels.list': readCommand((ctx, input: ChannelListInput) => {
    const user = ctx.user;
    if (input.includeAllActive && !isAdmin(user)) throw errors.queryNotAuthorized();
    const includeAll = input.includeAll || input.includeAllActive;
    const owner = user.botOwnerId === null ? undefined : ctx.state.users.get(user.botOwnerId);
    const defaults = new Set(ctx.state.realm.defaultChannelIds);
    const wanted = (channel: ChannelRecord): boolean =>
      (includeAll && canSeeChannel(ctx.state, channel, user)) ||
      (input.includePublic && !channel.inviteOnly && user.role !== Role.guest) ||
      (input.includeWebPublic && channel.isWebPublic) ||
      (input.includeSubscribed && ctx.state.isSubscribed(channel.id, user.id)) ||
      (input.includeDefault && defaults.has(channel.id)) ||
      (input.includeOwnerSubscribed && owner !== undefined && ctx.state.isSubscribed(channel.id, owner.id)) ||
      (input.includeCanAccessContent && canReadChannel(ctx.state, channel, user));
    return [...ctx.state.channels.values()]
      .filter((channel) => !(input.excludeArchived && channel.isArchived) && wanted(channel))
      .map((channel) => channelViewOf(ctx.state, channel));
  }),

  'subscriptions.remove': writeCommand(removeSubscriptions),

  /** PATCH /users/me/subscriptions: the user's own subscribing and leaving, in one transaction;
   * the answer is both answers together. */
  'subscriptions.update': writeCommand((ctx, input: { add: SubscribeInput | null; remove: UnsubscribeInput | null }) => {
    if (!input.add && !input.remove) throw errors.badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    return { ...(input.add ? addSubscriptions(ctx, input.add) : {}), ...(input.remove ? removeSubscriptions(ctx, input.remove) : {}) };
  }),

  /** GET /users/me/subscriptions: answered as JSON where the realm runs (a fields command). */
  'subscriptions.list': readCommand((ctx, input: { includeSubscribers: boolean }) => ({ subscriptions: subscriptionsInitialState(ctx, input.includeSubscribers, true, true).subscriptions })),

  'channels.get': readCommand((ctx, input: { channelId: number }) => {
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canSeeChannel(ctx.state, channel, ctx.user)) throw errors.badRequest('Invalid channel ID');
    return channelViewOf(ctx.state, channel);
  }),

  'channels.idByName': readCommand((ctx, input: { name: string }) => {
    const channel = ctx.state.channelByName(input.name);
    if (!channel || !canSeeChannel(ctx.state, channel, ctx.user)) throw errors.badRequest(`Invalid channel name '${input.name}'`);
    return channel.id;
  }),

  /** Whether a user is subscribed to a channel the requester can read (Zulip's
   * get_subscription_backend: bots and unknown users are "No such user"). */
  'subscriptions.status': readCommand((ctx, input: { userId: number; channelId: number }) => {
    const target = ctx.state.users.get(input.userId);
    if (!target || target.isBot) throw errors.noSuchUser();
    if (!target.isActive) throw errors.badRequest('User is deactivated');
    checkCanAccess(ctx, ctx.user, target);
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canReadChannel(ctx.state, channel, ctx.user)) throw errors.badRequest('Invalid channel ID');
    return ctx.state.isSubscribed(channel.id, target.id);
  }),

  /** A channel's address for incoming e-mail: Zulip answers "" when the server has no e-mail
   * gateway, and Parley has none. */
  'channels.emailAddress': readCommand((ctx, input: { channelId: number; senderId?: number }) => {
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canReadChannel(ctx.state, channel, ctx.user)) throw errors.badRequest('Invalid channel ID');
    if (input.senderId !== undefined && !ctx.state.users.get(input.senderId)?.isActive) throw errors.badRequest('Invalid user ID');
    return '';
  }),

  'channels.members': readCommand((ctx, input: { channelId: number }) => {
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canReadChannel(ctx.state, channel, ctx.user)) throw errors.badRequest('Invalid channel ID');
    return ctx.state.subscriberIds(channel.id);
  }),
};

/** The channels a client is told of: without the archived_channels capability, none archived. */
const listedChannels = (ctx: ReadContext, archived: boolean) => [...ctx.state.channels.values()].filter((channel) => archived || !channel.isArchived);

/** A channel's view as JSON, derived once per state version: the same for every viewer. */
const channelJsonOf = (state: RealmView, channel: ChannelRecord): string => state.channelJson.get(channel.id, () => JSON.stringify(channelViewOf(state, channel)));

/** A subscription's notification settings that follow the user's global ones (null) and the
 * global setting each follows. */
const inheritedFrom = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  push_notifications: 'enable_stream_push_notifications',
  email_notifications: 'enable_stream_email_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
} as const;

/** A subscription's own settings under Zulip's names and `in_home_view`; for a client without
 * notification_settings_null, each inherited one as the user's global value instead of null. */
function subscriptionSettingsOf(user: UserRecord, subscription: SubscriptionRecord, nullSettings: boolean) {
  const settings = { ...subscriptionSettings(subscription), in_home_view: !subscription.isMuted };
  if (!nullSettings) for (const [setting, global] of Object.entries(inheritedFrom) as [keyof typeof inheritedFrom, UserSettingName][]) settings[setting] ??= userSetting(user, global) === true;
  return settings;
}

/** Register's `subscriptions`, `unsubscribed` and `never_subscribed` (the visible channels never
 * subscribed to), each entry as JSON: the channel's view and its subscribers' IDs kept per state
 * version, joined with the user's settings (the members subscriptionView spreads, in its order). */
export function subscriptionsInitialState(ctx: ReadContext, includeSubscribers: boolean, archived: boolean, nullSettings: boolean) {
  const user = ctx.user;
  const subscriptions: string[] = [];
  const unsubscribed: string[] = [];
  const neverSubscribed: string[] = [];
  for (const channel of listedChannels(ctx, archived)) {
    const subscription = ctx.state.subscription(channel.id, user.id);
    const past = !subscription?.active;
    if (past && !canSeeChannel(ctx.state, channel, user)) continue;
    const view = channelJsonOf(ctx.state, channel);
    const settings = subscription ? `,${membersJson(subscriptionSettingsOf(user, subscription, nullSettings))}` : '';
    const subscribers = includeSubscribers ? `,"subscribers":${ctx.state.subscribersJson.get(channel.id, () => JSON.stringify(ctx.state.subscriberIds(channel.id)))}` : '';
    const entry = `${view.slice(0, -1)}${settings}${subscribers}}`;
    (!subscription ? neverSubscribed : past ? unsubscribed : subscriptions).push(entry);
  }
  return { subscriptions: new JsonArray<Subscription>(subscriptions), unsubscribed: new JsonArray<Subscription>(unsubscribed), never_subscribed: new JsonArray<ChannelView & { subscribers?: number[] }>(neverSubscribed) };
}

/** Register's `streams`: each channel the user can see, its JSON derived once per state version
 * (a channel's view is the same for every viewer) and written as it is. */
export function channelsInitialState(ctx: ReadContext, archived: boolean) {
  const user = ctx.user;
  const visible = listedChannels(ctx, archived).filter((channel) => canSeeChannel(ctx.state, channel, user));
  return { streams: new JsonArray<ChannelView>(visible.map((channel) => channelJsonOf(ctx.state, channel))) };
}
