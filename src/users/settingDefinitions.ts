// Every personal setting of a user (Zulip's UserBaseSettings) as data: its default, how a new value
// is checked beyond its type (schemas/update-settings.ts), and which legacy register group carried
// it for clients without the `user_settings_object` capability. settings.ts reads and writes them.

export type SettingValue = boolean | number | string | null;

/** Where Zulip's register put a setting before `user_settings` (feature level 89). */
export type LegacyGroup = 'display' | 'notification';

interface SettingDef {
  default: SettingValue;
  legacy?: LegacyGroup;
  /** Zulip's error message when a value of the right type is refused. */
  check?: (value: SettingValue) => string | undefined;
}

const oneOf =
  (allowed: readonly SettingValue[], message: (value: SettingValue) => string) =>
  (value: SettingValue): string | undefined =>
    allowed.includes(value) ? undefined : message(value);

/** The languages the server reports and accepts (Zulip's translated languages). */
export const languages: Readonly<Record<string, string>> = {
  en: 'English',
  de: 'Deutsch',
  es: 'español',
  fr: 'français',
  it: 'italiano',
  ja: '日本語',
  ko: '한국어',
  nl: 'Nederlands',
  pl: 'polski',
  pt: 'português',
  'pt-br': 'português (Brasil)',
  ru: 'русский',
  sv: 'svenska',
  tr: 'Türkçe',
  uk: 'українська',
  'zh-hans': '简体中文',
  'zh-hant': '繁體中文',
};

export const notificationSounds = ['zulip', 'chime', 'ding', 'swoosh'] as const;
export const emojisets = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
] as const;

/** The settings in Zulip's order, with Zulip's defaults. */
const definitions = {
  twenty_four_hour_time: { default: false, legacy: 'display' },
  web_mark_read_on_scroll_policy: { default: 1 },
  web_channel_default_view: { default: 1 },
  starred_message_counts: { default: true, legacy: 'display' },
  receives_typing_notifications: { default: true },
  web_suggest_update_timezone: { default: true },
  fluid_layout_width: { default: false, legacy: 'display' },
  high_contrast_mode: { default: false, legacy: 'display' },
  web_font_size_px: { default: 16, check: (value) => (Number(value) >= 12 && Number(value) <= 24 ? undefined : 'Invalid web_font_size_px') },
  web_line_height_percent: { default: 140, check: (value) => (Number(value) >= 100 && Number(value) <= 200 ? undefined : 'Invalid web_line_height_percent') },
  color_scheme: { default: 1, legacy: 'display' },
  translate_emoticons: { default: false, legacy: 'display' },
  display_emoji_reaction_users: { default: true },
  default_language: { default: 'en', legacy: 'display', check: oneOf(Object.keys(languages), () => 'Invalid default_language') },
  web_home_view: { default: 'inbox', legacy: 'display', check: oneOf(['recent_topics', 'inbox', 'all_messages'], () => 'Invalid web_home_view') },
  web_escape_navigates_to_home_view: { default: true },
  left_side_userlist: { default: false, legacy: 'display' },
  emojiset: { default: 'google', legacy: 'display', check: oneOf(emojisets.map((set) => set.key), () => 'Invalid emojiset') },
  demote_inactive_streams: { default: 1, legacy: 'display' },
  user_list_style: { default: 3 },
  web_animate_image_previews: { default: 'on_hover' },
  web_stream_unreads_count_display_policy: { default: 2 },
  hide_ai_features: { default: false },
  web_left_sidebar_show_channel_folders: { default: true },
  web_left_sidebar_unreads_count_summary: { default: true },
  timezone: { default: '', legacy: 'display' },
  enter_sends: { default: false, legacy: 'display' },
  enable_drafts_synchronization: { default: true, legacy: 'display' },
  enable_stream_desktop_notifications: { default: false, legacy: 'notification' },
  enable_stream_email_notifications: { default: false, legacy: 'notification' },
  enable_stream_push_notifications: { default: false, legacy: 'notification' },
  enable_stream_audible_notifications: { default: false, legacy: 'notification' },
  notification_sound: { default: 'zulip', legacy: 'notification', check: oneOf([...notificationSounds, 'none'], (value) => `Invalid notification sound '${String(value)}'`) },
  enable_desktop_notifications: { default: true, legacy: 'notification' },
  enable_sounds: { default: true, legacy: 'notification' },
  enable_followed_topic_desktop_notifications: { default: true },
  enable_followed_topic_email_notifications: { default: true },
  enable_followed_topic_push_notifications: { default: true },
  enable_followed_topic_audible_notifications: { default: true },
  email_notifications_batching_period_seconds: {
    default: 120,
    legacy: 'notification',
    check: (value) => (Number(value) >= 120 && Number(value) <= 7 * 24 * 3600 ? undefined : 'Invalid email_notifications_batching_period_seconds'),
  },
  enable_offline_email_notifications: { default: true, legacy: 'notification' },
  enable_offline_push_notifications: { default: true, legacy: 'notification' },
  enable_online_push_notifications: { default: true, legacy: 'notification' },
  enable_digest_emails: { default: true, legacy: 'notification' },
  enable_marketing_emails: { default: true, legacy: 'notification' },
  enable_login_emails: { default: true, legacy: 'notification' },
  message_content_in_email_notifications: { default: true, legacy: 'notification' },
  pm_content_in_desktop_notifications: { default: true, legacy: 'notification' },
  wildcard_mentions_notify: { default: true, legacy: 'notification' },
  enable_followed_topic_wildcard_mentions_notify: { default: true },
  desktop_icon_count_display: { default: 1, legacy: 'notification' },
  realm_name_in_email_notifications_policy: { default: 1, legacy: 'notification' },
  automatically_follow_topics_policy: { default: 3 },
  automatically_unmute_topics_in_muted_streams_policy: { default: 2 },
  automatically_follow_topics_where_mentioned: { default: true },
  resolved_topic_notice_auto_read_policy: { default: 'except_followed' },
  presence_enabled: { default: true, legacy: 'notification' },
  send_private_typing_notifications: { default: true },
  send_stream_typing_notifications: { default: true },
  send_read_receipts: { default: true },
  allow_private_data_export: { default: false },
  // Zulip's EMAIL_ADDRESS_VISIBILITY_EVERYONE (users/records.ts, EmailVisibility).
  email_address_visibility: { default: 1 },
  web_navigate_to_sent_message: { default: true },
} satisfies Record<string, SettingDef>;

export type UserSettingName = keyof typeof definitions;
export const userSettingNames = Object.keys(definitions) as UserSettingName[];
export const settingDefs: Readonly<Record<UserSettingName, SettingDef>> = definitions;

/** Stored per user: the values that differ from Zulip's defaults (absent: the default). */
export type StoredSettings = Partial<Record<UserSettingName, SettingValue>>;

export const isUserSettingName = (name: string): name is UserSettingName => Object.hasOwn(definitions, name);

