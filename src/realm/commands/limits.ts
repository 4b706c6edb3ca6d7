// Zulip's limits and the server's own constants, which clients read from register (spec: Limits).
import { typingTiming } from '../../messages/typing.js';
import { passwordPolicy } from '../../users/password.js';
import { presenceTiming } from '../../users/presence.js';
import { MAX_AVATAR_FILE_SIZE_MIB } from '../../users/avatars.js';

/** Reported by every register, whatever it fetches. */
export const limits = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
};


/** The server's side of register's `realm` state: what it offers and limits, whatever the realm. */
export const serverConstants = {
  ...limits,
  max_bulk_new_subscription_messages: 100,
  max_reminder_note_length: 1000,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  server_presence_ping_interval_seconds: presenceTiming.pingIntervalSeconds,
  server_presence_offline_threshold_seconds: presenceTiming.offlineThresholdSeconds,
  server_typing_started_expiry_period_milliseconds: typingTiming.startedExpiry,
  server_typing_stopped_wait_period_milliseconds: typingTiming.stoppedWait,
  server_typing_started_wait_period_milliseconds: typingTiming.startedWait,
  // No e-mail transport yet: no digests.
  settings_send_digest_emails: false,
  max_avatar_file_size_mib: MAX_AVATAR_FILE_SIZE_MIB,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  password_max_length: passwordPolicy('production').maxLength,
  // Parley checks length only; clients compare zxcvbn's guess count with this.
  password_min_guesses: 0,
  server_inline_image_preview: true,
  server_inline_url_embed_preview: false,
  server_thumbnail_formats: [],
  server_avatar_changes_disabled: false,
  server_name_changes_disabled: false,
  server_needs_upgrade: false,
  server_can_summarize_topics: false,
};
