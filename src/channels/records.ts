// Stored channel (stream) and subscription records.
import type { GroupSetting, SystemGroupName } from '../groups/records.js';

export const topicsPolicies = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof topicsPolicies)[number];

/** The channel permissions of the spec's Channel object, plus Zulip's others. */
export const channelPermissions = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
] as const;
export type ChannelPermission = (typeof channelPermissions)[number];

/** What each channel permission is for a new channel (Zulip's defaults): a system group, or the
 * channel's creator (nobody when the system creates it). */
export const channelPermissionDefaults: Record<ChannelPermission, SystemGroupName | 'stream_creator_or_nobody'> = {
  can_add_subscribers_group: 'role:nobody',
  can_remove_subscribers_group: 'role:administrators',
  can_administer_channel_group: 'stream_creator_or_nobody',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_move_messages_out_of_channel_group: 'role:nobody',
  can_move_messages_within_channel_group: 'role:nobody',
  can_send_message_group: 'role:everyone',
  can_subscribe_group: 'role:nobody',
  can_resolve_topics_group: 'role:nobody',
};

export interface ChannelRecord {
  id: number;
  realmId: number;
  /** Zulip's recipient ID of the channel (direct-message groups have their own). */
  recipientId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: number;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  /** null: the organization's setting; -1: forever. */
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  isArchived: boolean;
  firstMessageId: number | null;
  /** Zulip's is_recently_active; true for a new channel. Changed only together with an event. */
  isRecentlyActive: boolean;
  permissions: Record<ChannelPermission, GroupSetting>;
}

export interface SubscriptionRecord {
  realmId: number;
  channelId: number;
  userId: number;
  /** False once unsubscribed: the row stays so the channel counts as "unsubscribed", not "never". */
  active: boolean;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** Zulip's palette for new subscriptions, taken in turn. */
/** The settings a user changes on their own subscription (Zulip's update-subscription-settings). */
export const subscriptionProperties = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionProperty = (typeof subscriptionProperties)[number];

export const subscriptionColors = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e', '#c2726a'];

export interface FolderRecord {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  order: number;
  creatorId: number | null;
  dateCreated: number;
  isArchived: boolean;
}
