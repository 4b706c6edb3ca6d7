// The Channel, subscription and channel folder objects of the API.
import type { ChannelRecord, FolderRecord, SubscriptionRecord } from './records.js';

/** Zulip's deprecated stream_post_policy, kept consistent with can_send_message_group. */
function streamPostPolicy(channel: ChannelRecord, systemGroupIds: ReadonlyMap<number, string>): number {
  const setting = channel.permissions.can_send_message_group;
  const name = typeof setting === 'number' ? systemGroupIds.get(setting) : undefined;
  if (name === 'role:administrators') return 2;
  if (name === 'role:fullmembers') return 3;
  if (name === 'role:moderators') return 4;
  return 1;
}

export function channelView(channel: ChannelRecord, subscriberCount: number, systemGroupIds: ReadonlyMap<number, string>) {
  const postPolicy = streamPostPolicy(channel, systemGroupIds);
  return {
    stream_id: channel.id,
    name: channel.name,
    is_archived: channel.isArchived,
    description: channel.description,
    rendered_description: channel.renderedDescription,
    date_created: channel.dateCreated,
    creator_id: channel.creatorId,
    invite_only: channel.inviteOnly,
    is_web_public: channel.isWebPublic,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === 2,
    message_retention_days: channel.messageRetentionDays,
    history_public_to_subscribers: channel.historyPublicToSubscribers,
    topics_policy: channel.topicsPolicy,
    first_message_id: channel.firstMessageId,
    folder_id: channel.folderId,
    is_recently_active: channel.isRecentlyActive,
    stream_weekly_traffic: null,
    subscriber_count: subscriberCount,
    ...channel.permissions,
  };
}

export type ChannelView = ReturnType<typeof channelView>;

/** A subscription's own settings under Zulip's names (the API's, and Zulip's Subscription table's). */
export const subscriptionSettings = (subscription: SubscriptionRecord) => ({
  color: subscription.color,
  is_muted: subscription.isMuted,
  pin_to_top: subscription.pinToTop,
  desktop_notifications: subscription.desktopNotifications,
  audible_notifications: subscription.audibleNotifications,
  push_notifications: subscription.pushNotifications,
  email_notifications: subscription.emailNotifications,
  wildcard_mentions_notify: subscription.wildcardMentionsNotify,
});

export function subscriptionView(channel: ChannelView, subscription: SubscriptionRecord, subscribers?: readonly number[]) {
  return {
    ...channel,
    ...subscriptionSettings(subscription),
    in_home_view: !subscription.isMuted,
    ...(subscribers ? { subscribers } : {}),
  };
}

/** A channel folder as the API shows it. */
export const folderView = (folder: FolderRecord) => ({
  id: folder.id,
  name: folder.name,
  description: folder.description,
  rendered_description: folder.renderedDescription,
  order: folder.order,
  creator_id: folder.creatorId,
  date_created: folder.dateCreated,
  is_archived: folder.isArchived,
});
