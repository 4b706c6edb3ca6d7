// Parts that several operations' parameters share, written once.
import { subscriptionProperties, topicsPolicies } from '../src/channels/records.js';

/** A group-setting value: a user group's ID, or an anonymous group of users and subgroups. */
export const groupSetting = {
  anyOf: [
    { type: 'integer' },
    {
      type: 'object',
      properties: {
        direct_members: { type: 'array', items: { type: 'integer' } },
        direct_subgroups: { type: 'array', items: { type: 'integer' } },
      },
      required: ['direct_members', 'direct_subgroups'],
      additionalProperties: false,
    },
  ],
} as const;

/** A change of a group setting: the new value, and the old one the client saw (a conflicting
 * change since is refused). */
export const groupSettingUpdate = {
  type: 'object',
  properties: { new: groupSetting, old: groupSetting },
  required: ['new'],
  additionalProperties: false,
} as const;

/** What every invitation may say: expiry, role, channels and groups of the new user. */
export const inviteProperties = {
  invite_expires_in_minutes: { type: ['integer', 'null'] },
  invite_as: { type: 'integer', enum: [100, 200, 300, 400, 600], default: 400 },
  stream_ids: { type: 'array', items: { type: 'integer' }, maxItems: 1000, default: [] },
  group_ids: { type: 'array', items: { type: 'integer' }, maxItems: 1000, default: [] },
  include_realm_default_subscriptions: { type: 'boolean', default: false },
  welcome_message_custom_text: { type: ['string', 'null'], maxLength: 8000 },
} as const;

/** Operations on one invitation, named by its ID in the path. */
export const oneInvite = {
  type: 'object',
  properties: { invite_id: { type: 'integer' } },
  required: ['invite_id'],
  additionalProperties: false,
} as const;

/** A narrow: a list of terms, each [operator, operand] or {operator, operand, negated}. */
export const narrow = {
  type: 'array',
  items: {
    anyOf: [
      { type: 'array', items: [{ type: 'string' }, {}], minItems: 2, additionalItems: false },
      {
        type: 'object',
        properties: { operator: { type: 'string' }, operand: {}, negated: { type: 'boolean' } },
        required: ['operator', 'operand'],
      },
    ],
  },
  default: [],
} as const;

/** A draft as clients send it. */
export const draft = {
  type: 'object',
  properties: {
    type: { enum: ['', 'stream', 'private'] },
    to: { type: 'array', items: { type: 'integer' } },
    topic: { type: 'string' },
    content: { type: 'string' },
    timestamp: { type: 'integer', minimum: 0 },
  },
  required: ['type', 'to', 'topic', 'content'],
  additionalProperties: false,
} as const;

export const topicsPolicy = { enum: topicsPolicies } as const;

export const subscriptionProperty = { enum: subscriptionProperties } as const;

/** What creating and editing a custom profile field share. */
export const profileFieldProperties = {
  name: { type: 'string' },
  hint: { type: 'string' },
  field_data: { type: 'object' },
  display_in_profile_summary: { type: 'boolean' },
  required: { type: 'boolean' },
  editable_by_user: { type: 'boolean' },
} as const;

/** An emoji as statuses and reactions name it: its name, and optionally its code and type. */
export const emojiProperties = {
  emoji_name: { type: 'string' },
  emoji_code: { type: 'string' },
  reaction_type: { type: 'string' },
} as const;

/** A new channel's settings, as subscribing (which may create channels) and creating one take them. */
export const newChannelProperties = {
  announce: { type: 'boolean', default: false },
  invite_only: { type: 'boolean', default: false },
  is_web_public: { type: 'boolean', default: false },
  is_default_stream: { type: 'boolean', default: false },
  history_public_to_subscribers: { type: 'boolean' },
  message_retention_days: { type: ['string', 'integer'], default: 'realm_default' },
  topics_policy: { ...topicsPolicy, default: 'inherit' },
  send_new_subscription_messages: { type: 'boolean', default: true },
  can_add_subscribers_group: groupSetting,
  can_remove_subscribers_group: groupSetting,
  can_administer_channel_group: groupSetting,
  can_delete_any_message_group: groupSetting,
  can_delete_own_message_group: groupSetting,
  can_move_messages_out_of_channel_group: groupSetting,
  can_move_messages_within_channel_group: groupSetting,
  can_send_message_group: groupSetting,
  can_subscribe_group: groupSetting,
  can_resolve_topics_group: groupSetting,
} as const;

/** The personal settings an organization may set defaults for (PATCH /realm/user_settings_defaults). */
export const defaultableSettings = {
  twenty_four_hour_time: { type: 'boolean' },
  web_mark_read_on_scroll_policy: { type: 'integer', enum: [1, 2, 3] },
  web_channel_default_view: { type: 'integer', enum: [1, 2, 3, 4] },
  starred_message_counts: { type: 'boolean' },
  receives_typing_notifications: { type: 'boolean' },
  web_suggest_update_timezone: { type: 'boolean' },
  fluid_layout_width: { type: 'boolean' },
  high_contrast_mode: { type: 'boolean' },
  web_font_size_px: { type: 'integer', minimum: 1 },
  web_line_height_percent: { type: 'integer', minimum: 1 },
  color_scheme: { type: 'integer', enum: [1, 2, 3] },
  enable_drafts_synchronization: { type: 'boolean' },
  translate_emoticons: { type: 'boolean' },
  display_emoji_reaction_users: { type: 'boolean' },
  web_home_view: { type: 'string' },
  web_escape_navigates_to_home_view: { type: 'boolean' },
  left_side_userlist: { type: 'boolean' },
  emojiset: { type: 'string' },
  demote_inactive_streams: { type: 'integer', enum: [1, 2, 3] },
  user_list_style: { type: 'integer', enum: [1, 2, 3] },
  web_animate_image_previews: { type: 'string', enum: ['always', 'on_hover', 'never'] },
  web_stream_unreads_count_display_policy: { type: 'integer', enum: [1, 2, 3] },
  hide_ai_features: { type: 'boolean' },
  web_left_sidebar_show_channel_folders: { type: 'boolean' },
  web_left_sidebar_unreads_count_summary: { type: 'boolean' },
  enable_stream_desktop_notifications: { type: 'boolean' },
  enable_stream_email_notifications: { type: 'boolean' },
  enable_stream_push_notifications: { type: 'boolean' },
  enable_stream_audible_notifications: { type: 'boolean' },
  notification_sound: { type: 'string' },
  enable_desktop_notifications: { type: 'boolean' },
  enable_sounds: { type: 'boolean' },
  email_notifications_batching_period_seconds: { type: 'integer', minimum: 0 },
  enable_offline_email_notifications: { type: 'boolean' },
  enable_offline_push_notifications: { type: 'boolean' },
  enable_online_push_notifications: { type: 'boolean' },
  enable_followed_topic_desktop_notifications: { type: 'boolean' },
  enable_followed_topic_email_notifications: { type: 'boolean' },
  enable_followed_topic_push_notifications: { type: 'boolean' },
  enable_followed_topic_audible_notifications: { type: 'boolean' },
  enable_digest_emails: { type: 'boolean' },
  message_content_in_email_notifications: { type: 'boolean' },
  pm_content_in_desktop_notifications: { type: 'boolean' },
  wildcard_mentions_notify: { type: 'boolean' },
  enable_followed_topic_wildcard_mentions_notify: { type: 'boolean' },
  desktop_icon_count_display: { type: 'integer', enum: [1, 2, 3, 4] },
  realm_name_in_email_notifications_policy: { type: 'integer', enum: [1, 2, 3] },
  automatically_follow_topics_policy: { type: 'integer', enum: [1, 2, 3, 4] },
  automatically_unmute_topics_in_muted_streams_policy: { type: 'integer', enum: [1, 2, 3, 4] },
  automatically_follow_topics_where_mentioned: { type: 'boolean' },
  resolved_topic_notice_auto_read_policy: { type: 'string', enum: ['always', 'except_followed', 'never'] },
  presence_enabled: { type: 'boolean' },
  enter_sends: { type: 'boolean' },
  send_private_typing_notifications: { type: 'boolean' },
  send_stream_typing_notifications: { type: 'boolean' },
  send_read_receipts: { type: 'boolean' },
  email_address_visibility: { type: 'integer', enum: [1, 2, 3, 4, 5] },
  web_navigate_to_sent_message: { type: 'boolean' },
} as const;

/** The personal settings that have no organization default. */
export const personalOnlySettings = {
  default_language: { type: 'string' },
  timezone: { type: 'string' },
  enable_marketing_emails: { type: 'boolean' },
  enable_login_emails: { type: 'boolean' },
  allow_private_data_export: { type: 'boolean' },
} as const;
