// The organization's settings as data: Zulip's defaults for a self-hosted server for its plain
// settings, and for each group setting the system group it defaults to and the values it accepts.
import type { SystemGroupName } from '../groups/records.js';

/** The organization's plain settings (register's `realm_<name>`) with Zulip's defaults. */
export const realmPropertyDefaults = {
  avatar_changes_disabled: false,
  default_code_block_language: '',
  default_language: 'en',
  digest_emails_enabled: false,
  digest_weekday: 1,
  disallow_disposable_email_addresses: true,
  email_changes_disabled: false,
  emails_restricted_to_domains: false,
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  enable_read_receipts: false,
  giphy_rating: 2,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  invite_required: true,
  jitsi_server_url: null as string | null,
  message_content_allowed_in_email_notifications: true,
  message_content_delete_limit_seconds: 600 as number | null,
  message_retention_days: -1,
  moderation_request_channel_id: -1,
  name_changes_disabled: false,
  org_type: 0,
  presence_disabled: false,
  require_e2ee_push_notifications: false,
  require_unique_names: false,
  send_welcome_emails: true,
  signup_announcements_stream_id: -1,
  video_chat_provider: 1,
  waiting_period_threshold: 0,
  want_advertise_in_communities_directory: false,
  welcome_message_custom_text: '',
  zulip_update_announcements_stream_id: -1,
};
export type RealmPropertyName = keyof typeof realmPropertyDefaults;
export type RealmProperties = { -readonly [K in RealmPropertyName]: (typeof realmPropertyDefaults)[K] };

export interface GroupSettingRule {
  default: SystemGroupName;
  requireSystemGroup?: boolean;
  allowEveryone?: boolean;
  allowNobody?: boolean;
  allowedSystemGroups?: SystemGroupName[];
}

/** The organization's group settings (register's `realm_<name>`), as Zulip defines them. */
export const realmGroupSettings = {
  can_access_all_users_group: { default: 'role:everyone', requireSystemGroup: true, allowEveryone: true, allowNobody: false, allowedSystemGroups: ['role:everyone', 'role:members'] },
  can_add_custom_emoji_group: { default: 'role:members' },
  can_add_subscribers_group: { default: 'role:members' },
  can_create_bots_group: { default: 'role:members' },
  can_create_groups: { default: 'role:members' },
  can_create_private_channel_group: { default: 'role:members' },
  can_create_public_channel_group: { default: 'role:members' },
  can_create_web_public_channel_group: {
    default: 'role:owners',
    requireSystemGroup: true,
    allowedSystemGroups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  },
  can_create_write_only_bots_group: { default: 'role:members' },
  can_delete_any_message_group: { default: 'role:administrators' },
  can_delete_own_message_group: { default: 'role:everyone', allowEveryone: true },
  can_invite_users_group: { default: 'role:members' },
  can_manage_all_groups: { default: 'role:owners', allowNobody: false },
  can_manage_billing_group: { default: 'role:administrators', allowNobody: false },
  can_mention_many_users_group: { default: 'role:administrators', allowEveryone: true },
  can_move_messages_between_channels_group: { default: 'role:members' },
  can_move_messages_between_topics_group: { default: 'role:everyone', allowEveryone: true },
  can_resolve_topics_group: { default: 'role:everyone', allowEveryone: true },
  can_set_delete_message_policy_group: { default: 'role:moderators', allowNobody: false },
  can_set_topics_policy_group: { default: 'role:moderators' },
  can_summarize_topics_group: { default: 'role:everyone', allowEveryone: true },
  create_multiuse_invite_group: { default: 'role:administrators' },
  direct_message_initiator_group: { default: 'role:everyone', allowEveryone: true },
  direct_message_permission_group: { default: 'role:everyone', allowEveryone: true },
} satisfies Record<string, GroupSettingRule>;
export type RealmGroupSettingName = keyof typeof realmGroupSettings;
export const realmGroupSettingNames = Object.keys(realmGroupSettings) as RealmGroupSettingName[];
