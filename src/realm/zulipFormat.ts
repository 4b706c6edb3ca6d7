// Zulip's realm export format (zerver/lib/export.py, `manage.py export`): the rows of the tables
// Parley writes and reads, under Zulip's table and field names. Dates are UNIX seconds as floats
// (export.py's DATE_FIELDS); foreign keys are plain IDs; rows carry more fields than these in a
// real Zulip export, and the importer ignores what Parley has no use for.
import { createHash } from 'node:crypto';
import { Flag } from '../messages/records.js';
import { realmChannelSettingNames } from '../organization/settings.js';
import type { RealmRecord } from '../organization/records.js';

/** Zulip's Recipient.type values. */
export const RecipientType = { personal: 1, stream: 2, directMessageGroup: 3 } as const;

/** How many messages one messages-NNNNNN.json holds (export.py's MESSAGE_BATCH_CHUNK_SIZE). */
export const MESSAGES_PER_FILE = 1000;

/** Zulip's UserMessage flag bits Parley keeps (its Flag values are Zulip's); is_private is set on
 * export for direct messages, as Zulip stores it. */
export const KEPT_FLAGS = Object.values(Flag).reduce((mask, bit) => mask | bit, 0);
export const IS_PRIVATE_FLAG = 2048;

/** Zulip's direct-message group hash (get_direct_message_group_hash): SHA-1 of the sorted IDs. */
export const directMessageGroupHash = (userIds: readonly number[]): string =>
  createHash('sha1').update([...new Set(userIds)].sort((a, b) => a - b).join(',')).digest('hex');

/** Rows grouped by a reference they hold (a user, a group, a recipient). */
export function rowsBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** Organization settings that name a channel: Parley's property (-1: none) and Zulip's realm
 * column (a stream ID or null). */
export const channelSettings = realmChannelSettingNames.map((property) => [property, property.replace(/_id$/, '')] as const);

/** Zulip's notification bot in zerver_userprofile_crossrealm: Parley's realm notification bot. */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
/** Zulip's Welcome Bot in zerver_userprofile_crossrealm: Parley's realm Welcome Bot. */
export const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';

/** The realm's own bots as Zulip's cross-realm bots, by the e-mail Zulip gives each. */
export const systemBots = (realm: Pick<RealmRecord, 'notificationBotId' | 'welcomeBotId'>): [email: string, userId: number | undefined][] => [
  [NOTIFICATION_BOT_EMAIL, realm.notificationBotId ?? undefined],
  [WELCOME_BOT_EMAIL, realm.welcomeBotId],
];

/** The file name of the n-th (from 1) message file. */
export const messageFileName = (n: number): string => `messages-${String(n).padStart(6, '0')}.json`;

export interface ZulipRecipient {
  id: number;
  type: number;
  type_id: number;
}

export interface ZulipUserProfile {
  id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  realm: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner: number | null;
  role: number;
  timezone: string;
  date_joined: number;
  last_login: number | null;
  email_address_visibility: number;
  avatar_source: string;
  avatar_version: number;
  is_mirror_dummy: boolean;
  recipient: number | null;
  /** And every personal setting, under Zulip's names. */
  [setting: string]: unknown;
}

/** A system bot of Zulip's internal realm that the realm's messages may come from. */
export interface ZulipCrossRealmBot {
  id: number;
  email: string;
  recipient_id: number;
  /** Parley's addition: when the realm's notification bot was made (Zulip's importer ignores it). */
  date_joined?: number;
}

export interface ZulipStream {
  id: number;
  name: string;
  realm: number;
  date_created: number;
  deactivated: boolean;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  history_public_to_subscribers: boolean;
  is_web_public: boolean;
  message_retention_days: number | null;
  recipient: number;
  first_message_id: number | null;
  is_recently_active: boolean;
  creator: number | null;
  /** And the channel's group settings (can_send_message_group, …): user group IDs. */
  [setting: string]: unknown;
}

export interface ZulipSubscription {
  id: number;
  user_profile: number;
  recipient: number;
  active: boolean;
  is_user_active: boolean;
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

export interface ZulipDirectMessageGroup {
  id: number;
  huddle_hash: string;
  group_size: number;
  recipient: number;
}

/** A user group: named ones also have a zerver_namedusergroup row, anonymous ones (the value of a
 * group setting that is a set of users and groups) only this. */
export interface ZulipUserGroup {
  id: number;
  realm: number;
}

export interface ZulipNamedUserGroup {
  /** The group's ID is its zerver_usergroup row's: `usergroup_ptr`, and `id` in most exports. */
  id: number;
  usergroup_ptr?: number;
  name: string;
  description: string;
  is_system_group: boolean;
  deactivated: boolean;
  realm_for_sharding: number;
  creator: number | null;
  date_created: number | null;
  /** And the group's own group settings (can_manage_group, …): user group IDs. */
  [setting: string]: unknown;
}

export interface ZulipUserGroupMembership {
  id: number;
  user_group: number;
  user_profile: number;
}

export interface ZulipGroupGroupMembership {
  id: number;
  supergroup: number;
  subgroup: number;
}

export interface ZulipCustomProfileField {
  id: number;
  realm: number;
  name: string;
  hint: string;
  order: number;
  field_type: number;
  /** JSON text ('' when there is none). */
  field_data: string;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

export interface ZulipCustomProfileFieldValue {
  id: number;
  user_profile: number;
  field: number;
  value: string;
  rendered_value: string | null;
}

export interface ZulipDefaultStream {
  id: number;
  realm: number;
  stream: number;
}

export interface ZulipReaction {
  id: number;
  user_profile: number;
  message: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** A widget's definition or one of its changes (a poll's vote, a to-do list's check). */
export interface ZulipSubMessage {
  id: number;
  message: number;
  sender: number;
  msg_type: string;
  content: string;
}

export interface ZulipAlertWord {
  id: number;
  user_profile: number;
  realm: number;
  word: string;
}

export interface ZulipMutedUser {
  id: number;
  user_profile: number;
  muted_user: number;
  date_muted: number;
}

export interface ZulipUserTopic {
  id: number;
  user_profile: number;
  stream: number;
  recipient: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export interface ZulipUserStatus {
  id: number;
  user_profile: number;
  timestamp: number;
  client: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** A linkifier. */
export interface ZulipRealmFilter {
  id: number;
  realm: number;
  pattern: string;
  url_template: string;
  reverse_template?: string | null;
  alternative_url_templates?: string[];
  order: number;
}

/** A key of a bot's storage (Zulip's BotStorageData). */
export interface ZulipBotStorageData {
  id: number;
  bot_profile: number;
  key: string;
  value: string;
}

export interface ZulipClient {
  id: number;
  name: string;
}

export interface ZulipMessage {
  id: number;
  sender: number;
  recipient: number;
  realm: number;
  subject: string;
  content: string;
  rendered_content: string | null;
  rendered_content_version: number | null;
  date_sent: number;
  last_edit_time: number | null;
  edit_history: string | null;
  sending_client: number;
  has_attachment: boolean;
  has_image: boolean;
  has_link: boolean;
  type: number;
  is_channel_message: boolean;
}

export interface ZulipUserMessage {
  id: number;
  user_profile: number;
  message: number;
  flags_mask: number;
}

/** realm.json: the realm's tables. The realm row carries its settings under Zulip's names. */
export interface ZulipRealmTables {
  zerver_realm: Record<string, unknown>[];
  zerver_userprofile: ZulipUserProfile[];
  zerver_userprofile_crossrealm: ZulipCrossRealmBot[];
  zerver_userprofile_mirrordummy: ZulipUserProfile[];
  zerver_recipient: ZulipRecipient[];
  zerver_stream: ZulipStream[];
  zerver_subscription: ZulipSubscription[];
  zerver_huddle: ZulipDirectMessageGroup[];
  zerver_usergroup: ZulipUserGroup[];
  zerver_namedusergroup: ZulipNamedUserGroup[];
  zerver_usergroupmembership: ZulipUserGroupMembership[];
  zerver_groupgroupmembership: ZulipGroupGroupMembership[];
  zerver_customprofilefield: ZulipCustomProfileField[];
  zerver_customprofilefieldvalue: ZulipCustomProfileFieldValue[];
  zerver_defaultstream: ZulipDefaultStream[];
  zerver_reaction: ZulipReaction[];
  zerver_submessage: ZulipSubMessage[];
  zerver_alertword: ZulipAlertWord[];
  zerver_muteduser: ZulipMutedUser[];
  zerver_usertopic: ZulipUserTopic[];
  zerver_userstatus: ZulipUserStatus[];
  zerver_realmfilter: ZulipRealmFilter[];
  zerver_botstoragedata: ZulipBotStorageData[];
  zerver_client: ZulipClient[];
}

/** One messages-NNNNNN.json. */
export interface ZulipMessageFile {
  zerver_message: ZulipMessage[];
  zerver_usermessage: ZulipUserMessage[];
}
