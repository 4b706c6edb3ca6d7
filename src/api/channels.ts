// Channel and subscription endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { channelPermissions, type ChannelPermission } from '../channels/records.js';
import { errors } from '../errors.js';
import { visibilityPolicies } from '../machines/topic.js';
import type { GroupSetting } from '../groups/records.js';
import type { UserRequest } from '../http/route.js';

type PermissionParams = Partial<Record<ChannelPermission, GroupSetting>>;

/** `realm_default` → null (inherit), `unlimited` → -1, or a positive number of days. */
export function retentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  const days = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(days) || days < 1) throw errors.badRequest(`Bad value for 'message_retention_days': ${value}`);
  return days;
}

/** A new channel's settings as subscribing and creating a channel take them. */
function newChannelOf(params: Params<typeof schemas.subscribe> | Params<typeof schemas.createChannel>) {
  const permissions: PermissionParams = {};
  for (const name of channelPermissions) if (params[name] !== undefined) permissions[name] = params[name];
  return {
    inviteOnly: params.invite_only,
    isWebPublic: params.is_web_public,
    historyPublicToSubscribers: params.history_public_to_subscribers ?? null,
    messageRetentionDays: retentionDays(params.message_retention_days),
    topicsPolicy: params.topics_policy,
    permissions,
  };
}

export const subscribe = (request: UserRequest, params: Params<typeof schemas.subscribe>) =>
  request.realm.ask('subscriptions.add', request.user.userId, {
    subscriptions: params.subscriptions,
    principals: params.principals ?? null,
    authorizationErrorsFatal: params.authorization_errors_fatal,
    isDefaultStream: params.is_default_stream,
    announce: params.announce,
    newChannel: newChannelOf(params),
  });

/** PATCH /users/me/subscriptions: joining (public channels as created by default) and leaving, at
 * once. Colors asked for are not applied: new subscriptions get the server's. */
export const updateSubscriptions = (request: UserRequest, params: Params<typeof schemas.updateSubscriptions>) =>
  request.realm.ask('subscriptions.update', request.user.userId, {
    add: params.add
      ? {
          subscriptions: params.add.map(({ name, description }) => ({ name, ...(description === undefined ? {} : { description }) })),
          principals: null,
          authorizationErrorsFatal: true,
          isDefaultStream: false,
          announce: false,
          newChannel: { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: null, messageRetentionDays: null, topicsPolicy: 'inherit', permissions: {} },
        }
      : null,
    remove: params.delete ? { names: params.delete, principals: null } : null,
  });

export const createChannel = (request: UserRequest, params: Params<typeof schemas.createChannel>) =>
  request.realm.ask('channels.create', request.user.userId, {
    channel: { ...newChannelOf(params), name: params.name, description: params.description, folderId: params.folder_id ?? null },
    subscribers: params.subscribers,
    isDefaultStream: params.is_default_stream,
    announce: params.announce,
  });

export const getSubscriptions = (request: UserRequest, params: Params<typeof schemas.getSubscriptions>) => request.realm.askFields('subscriptions.list', request.user.userId, { includeSubscribers: params.include_subscribers });

export async function getChannels(request: UserRequest, params: Params<typeof schemas.getStreams>) {
  const streams = await request.realm.ask('channels.list', request.user.userId, {
    includePublic: params.include_public,
    includeWebPublic: params.include_web_public,
    includeSubscribed: params.include_subscribed,
    excludeArchived: params.exclude_archived,
    includeAll: params.include_all,
    includeDefault: params.include_default,
    includeOwnerSubscribed: params.include_owner_subscribed,
    includeCanAccessContent: params.include_can_access_content,
    includeAllActive: params.include_all_active,
  });
  return { streams };
}

export async function getChannel(request: UserRequest, params: Params<typeof schemas.getStreamById>) {
  return { stream: await request.realm.ask('channels.get', request.user.userId, { channelId: params.stream_id }) };
}

export async function getChannelId(request: UserRequest, params: Params<typeof schemas.getStreamId>) {
  return { stream_id: await request.realm.ask('channels.idByName', request.user.userId, { name: params.stream }) };
}

export async function getSubscriptionStatus(request: UserRequest, params: Params<typeof schemas.getSubscriptionStatus>) {
  return { is_subscribed: await request.realm.ask('subscriptions.status', request.user.userId, { userId: params.user_id, channelId: params.stream_id }) };
}

export async function getChannelEmailAddress(request: UserRequest, params: Params<typeof schemas.getStreamEmailAddress>) {
  return { email: await request.realm.ask('channels.emailAddress', request.user.userId, { channelId: params.stream_id, senderId: params.sender_id }) };
}

export async function getChannelMembers(request: UserRequest, params: Params<typeof schemas.getSubscribers>) {
  return { subscribers: await request.realm.ask('channels.members', request.user.userId, { channelId: params.stream_id }) };
}

export const updateSubscriptionSetting = (request: UserRequest, params: Params<typeof schemas.updateSubscriptionSetting>) =>
  request.realm.ask('subscriptions.setProperties', request.user.userId, { changes: [{ channelId: params.stream_id, property: params.property, value: params.value }] });

export const updateSubscriptionSettings = (request: UserRequest, params: Params<typeof schemas.updateSubscriptionSettings>) =>
  request.realm.ask('subscriptions.setProperties', request.user.userId, {
    changes: params.subscription_data.map((change) => ({ channelId: change.stream_id, property: change.property, value: change.value })),
  });

/** Spec endpoint 4 (deprecated since level 170): `add` mutes, `remove` returns to the default. */
export const muteTopic = (request: UserRequest, params: Params<typeof schemas.muteTopic>) =>
  request.realm.ask('topics.setVisibility', request.user.userId, {
    channelId: params.stream_id,
    channelName: params.stream,
    topic: params.topic,
    policy: params.op === 'add' ? 'muted' : 'inherit',
  });

export const setTopicVisibility = (request: UserRequest, params: Params<typeof schemas.updateUserTopic>) =>
  request.realm.ask('topics.setVisibility', request.user.userId, {
    channelId: params.stream_id,
    topic: params.topic,
    policy: visibilityPolicies[params.visibility_policy],
  });

export const archiveChannel = (request: UserRequest, params: Params<typeof schemas.archiveStream>) =>
  request.realm.ask('channels.archive', request.user.userId, { channelId: params.stream_id });

type SettingUpdate = { new: GroupSetting; old?: GroupSetting };

export function updateChannel(request: UserRequest, params: Params<typeof schemas.updateStream>) {
  const permissions: Partial<Record<ChannelPermission, SettingUpdate>> = {};
  for (const name of channelPermissions) if (params[name] !== undefined) permissions[name] = params[name];
  return request.realm.ask('channels.update', request.user.userId, {
    channelId: params.stream_id,
    description: params.description,
    newName: params.new_name,
    isPrivate: params.is_private,
    isWebPublic: params.is_web_public,
    historyPublicToSubscribers: params.history_public_to_subscribers,
    isDefaultStream: params.is_default_stream,
    retention: params.message_retention_days === undefined ? undefined : { days: retentionDays(params.message_retention_days) },
    isArchived: params.is_archived,
    folderId: params.folder_id,
    topicsPolicy: params.topics_policy,
    permissions,
  });
}

export const unsubscribe = (request: UserRequest, params: Params<typeof schemas.unsubscribe>) =>
  request.realm.ask('subscriptions.remove', request.user.userId, { names: params.subscriptions, principals: params.principals ?? null });

export const addDefaultChannel = (request: UserRequest, params: Params<typeof schemas.addDefaultStream>) =>
  request.realm.ask('channels.setDefault', request.user.userId, { channelId: params.stream_id, isDefault: true });

export const removeDefaultChannel = (request: UserRequest, params: Params<typeof schemas.removeDefaultStream>) =>
  request.realm.ask('channels.setDefault', request.user.userId, { channelId: params.stream_id, isDefault: false });

/** Spec endpoint 10: batches, newest first, each its own transaction, until the topic is empty or
 * the time budget is spent (then complete: false, and the client repeats the request). */
export async function deleteTopic(request: UserRequest, params: Params<typeof schemas.deleteTopic>) {
  // A budget of real work time, whatever the server's clock says.
  const deadline = performance.now() + request.config.deleteTopicBudgetMs;
  for (;;) {
    const { remaining } = await request.realm.ask('topics.deleteBatch', request.user.userId, { channelId: params.stream_id, topic: params.topic_name });
    if (!remaining) return { complete: true };
    if (performance.now() >= deadline) return { complete: false };
  }
}
