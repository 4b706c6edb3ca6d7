// Channel and subscription endpoints.
import { channelPermissions, type ChannelPermission, type TopicsPolicy } from '../channels/records.js';
import { errors } from '../errors.js';
import { visibilityPolicies } from '../machines/topic.js';
import type { GroupSetting } from '../groups/records.js';
import type { UserRequest } from '../http/route.js';

type PermissionParams = Partial<Record<ChannelPermission, GroupSetting>>;

interface SubscribeParams extends PermissionParams {
  subscriptions: { name: string; description?: string }[];
  principals?: (string | number)[];
  authorization_errors_fatal: boolean;
  announce: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days: string | number;
  topics_policy: TopicsPolicy;
}


/** `realm_default` → null (inherit), `unlimited` → -1, or a positive number of days. */
export function retentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  const days = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(days) || days < 1) throw errors.badRequest(`Bad value for 'message_retention_days': ${value}`);
  return days;
}

export function subscribe(request: UserRequest, params: SubscribeParams) {
  const permissions: PermissionParams = {};
  for (const name of channelPermissions) if (params[name] !== undefined) permissions[name] = params[name];
  return request.realm.ask('subscriptions.add', request.user.userId, {
    subscriptions: params.subscriptions,
    principals: params.principals ?? null,
    authorizationErrorsFatal: params.authorization_errors_fatal,
    isDefaultStream: params.is_default_stream,
    announce: params.announce,
    newChannel: {
      inviteOnly: params.invite_only,
      isWebPublic: params.is_web_public,
      historyPublicToSubscribers: params.history_public_to_subscribers ?? null,
      messageRetentionDays: retentionDays(params.message_retention_days),
      topicsPolicy: params.topics_policy,
      permissions,
    },
  });
}

export async function getSubscriptions(request: UserRequest, params: { include_subscribers: boolean }) {
  return { subscriptions: await request.realm.ask('subscriptions.list', request.user.userId, { includeSubscribers: params.include_subscribers }) };
}

interface ListParams {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_default: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
  include_all_active: boolean;
}

export async function getChannels(request: UserRequest, params: ListParams) {
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

export async function getChannel(request: UserRequest, params: { stream_id: number }) {
  return { stream: await request.realm.ask('channels.get', request.user.userId, { channelId: params.stream_id }) };
}

export async function getChannelId(request: UserRequest, params: { stream: string }) {
  return { stream_id: await request.realm.ask('channels.idByName', request.user.userId, { name: params.stream }) };
}

export async function getChannelMembers(request: UserRequest, params: { stream_id: number }) {
  return { subscribers: await request.realm.ask('channels.members', request.user.userId, { channelId: params.stream_id }) };
}

export const updateSubscriptionSetting = (request: UserRequest, params: { stream_id: number; property: string; value: unknown }) =>
  request.realm.ask('subscriptions.setProperties', request.user.userId, { changes: [{ channelId: params.stream_id, property: params.property, value: params.value }] });

export const updateSubscriptionSettings = (request: UserRequest, params: { subscription_data: { stream_id: number; property: string; value: unknown }[] }) =>
  request.realm.ask('subscriptions.setProperties', request.user.userId, {
    changes: params.subscription_data.map((change) => ({ channelId: change.stream_id, property: change.property, value: change.value })),
  });

/** Spec endpoint 4 (deprecated since level 170): `add` mutes, `remove` returns to the default. */
export const muteTopic = (request: UserRequest, params: { stream_id?: number; stream?: string; topic: string; op: 'add' | 'remove' }) =>
  request.realm.ask('topics.setVisibility', request.user.userId, {
    channelId: params.stream_id,
    channelName: params.stream,
    topic: params.topic,
    policy: params.op === 'add' ? 'muted' : 'inherit',
  });

export const setTopicVisibility = (request: UserRequest, params: { stream_id: number; topic: string; visibility_policy: 0 | 1 | 2 | 3 }) =>
  request.realm.ask('topics.setVisibility', request.user.userId, {
    channelId: params.stream_id,
    topic: params.topic,
    policy: visibilityPolicies[params.visibility_policy],
  });

export const archiveChannel = (request: UserRequest, params: { stream_id: number }) =>
  request.realm.ask('channels.archive', request.user.userId, { channelId: params.stream_id });

type SettingUpdate = { new: GroupSetting; old?: GroupSetting };

interface ChannelUpdateParams extends Partial<Record<ChannelPermission, SettingUpdate>> {
  stream_id: number;
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  folder_id?: number | null;
  topics_policy?: TopicsPolicy;
}

export function updateChannel(request: UserRequest, params: ChannelUpdateParams) {
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

export const unsubscribe = (request: UserRequest, params: { subscriptions: string[]; principals?: (string | number)[] }) =>
  request.realm.ask('subscriptions.remove', request.user.userId, { names: params.subscriptions, principals: params.principals ?? null });

export const addDefaultChannel = (request: UserRequest, params: { stream_id: number }) =>
  request.realm.ask('channels.setDefault', request.user.userId, { channelId: params.stream_id, isDefault: true });

export const removeDefaultChannel = (request: UserRequest, params: { stream_id: number }) =>
  request.realm.ask('channels.setDefault', request.user.userId, { channelId: params.stream_id, isDefault: false });

/** Spec endpoint 10: batches, newest first, each its own transaction, until the topic is empty or
 * the time budget is spent (then complete: false, and the client repeats the request). */
export async function deleteTopic(request: UserRequest, params: { stream_id: number; topic_name: string }) {
  // A budget of real work time, whatever the server's clock says.
  const deadline = performance.now() + request.config.deleteTopicBudgetMs;
  for (;;) {
    const { remaining } = await request.realm.ask('topics.deleteBatch', request.user.userId, { channelId: params.stream_id, topic: params.topic_name });
    if (!remaining) return { complete: true };
    if (performance.now() >= deadline) return { complete: false };
  }
}
