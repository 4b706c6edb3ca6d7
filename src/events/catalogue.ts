// Every event the server sends, one type per kind (Zulip's `type` and `op`), as Zulip's
// zerver/lib/event_types.py lists them: commands can only emit what is declared here, and clients'
// code (the tests' applyEvent) can switch over the union.
import type { ChannelView, folderView, subscriptionView } from '../channels/view.js';
import type { SubscriptionProperty } from '../channels/records.js';
import type { groupView } from '../groups/view.js';
import type { attachmentView } from '../messages/attachments.js';
import type { linkifierView } from '../messages/linkifiers.js';
import type { draftView, reminderView, scheduledMessageView } from '../messages/objects.js';
import type { savedSnippetView } from '../messages/savedSnippets.js';
import type { playgroundView } from '../messages/playgrounds.js';
import type { exportView } from '../organization/exports.js';
import type { navigationViewView } from '../users/navigationViews.js';
import type { messageView, reactionView } from '../messages/view.js';
import type { LegacyClientPresence, ModernPresence } from '../users/presence.js';
import type { fieldView } from '../users/profileFields.js';
import type { SettingValue } from '../users/settings.js';
import type { realmEmojiView } from '../emoji/custom.js';
import type { botView, UserView } from '../users/view.js';

type View<F extends (...args: never[]) => unknown> = ReturnType<F>;
type BotView = View<typeof botView>;
type GroupView = View<typeof groupView>;
type FolderView = View<typeof folderView>;

/** What a realm_user update carries: the user's ID and the fields that changed. */
export type PersonUpdate = { user_id: number } & Partial<Pick<UserView, 'email' | 'full_name' | 'timezone' | 'role' | 'is_active' | 'avatar_url' | 'avatar_version' | 'is_deleted'>> & {
  bot_owner_id?: number;
  new_email?: string;
  delivery_email?: string | null;
  avatar_source?: string;
  avatar_url_medium?: string | null;
  custom_profile_field?: { id: number; value: string | null; rendered_value?: string };
};

export type RealmUserEvent =
  | { type: 'realm_user'; op: 'add'; person: UserView }
  | { type: 'realm_user'; op: 'update'; person: PersonUpdate }
  /** To a guest who can no longer see the user (Zulip's feature level 228). */
  | { type: 'realm_user'; op: 'remove'; person: { user_id: number; full_name: string } };

export type RealmBotEvent =
  | { type: 'realm_bot'; op: 'add'; bot: BotView }
  | { type: 'realm_bot'; op: 'remove'; bot: { user_id: number; full_name: string } }
  /** To a bot's previous owner, who no longer sees it. */
  | { type: 'realm_bot'; op: 'delete'; bot: { user_id: number } }
  | { type: 'realm_bot'; op: 'update'; bot: { user_id: number } & Partial<Pick<BotView, 'is_active' | 'full_name' | 'api_key' | 'owner_id' | 'services'>> };

export type StreamEvent =
  | { type: 'stream'; op: 'create'; streams: ChannelView[] }
  | { type: 'stream'; op: 'delete'; streams: { stream_id: number }[]; stream_ids: number[] }
  | {
      type: 'stream';
      op: 'update';
      stream_id: number;
      name: string;
      property: string;
      value: unknown;
      rendered_description?: string;
      history_public_to_subscribers?: boolean;
      is_web_public?: boolean;
    };

export type SubscriptionEvent =
  | { type: 'subscription'; op: 'add'; subscriptions: View<typeof subscriptionView>[] }
  | { type: 'subscription'; op: 'remove'; subscriptions: { stream_id: number; name: string }[] }
  | { type: 'subscription'; op: 'update'; stream_id: number; property: SubscriptionProperty; value: string | boolean | null }
  | { type: 'subscription'; op: 'peer_add' | 'peer_remove'; stream_ids: number[]; user_ids: number[] };

export type UserGroupEvent =
  | { type: 'user_group'; op: 'add'; group: GroupView }
  | { type: 'user_group'; op: 'update'; group_id: number; data: Partial<GroupView> }
  /** A group deactivated, to clients that do not declare include_deactivated_groups. */
  | { type: 'user_group'; op: 'remove'; group_id: number }
  | { type: 'user_group'; op: 'add_members' | 'remove_members'; group_id: number; user_ids: number[] }
  | { type: 'user_group'; op: 'add_subgroups' | 'remove_subgroups'; group_id: number; direct_subgroup_ids: number[] };

export type ChannelFolderEvent =
  | { type: 'channel_folder'; op: 'add'; channel_folder: FolderView }
  | { type: 'channel_folder'; op: 'update'; channel_folder_id: number; data: Partial<FolderView> }
  | { type: 'channel_folder'; op: 'reorder'; order: number[] };

/** The messages a delete_message event names: all at once for clients with bulk_message_deletion,
 * one per event for older ones. */
type DeletedIds = { message_ids: number[]; message_id?: never } | { message_id: number; message_ids?: never };

export interface MessageEvent {
  type: 'message';
  message: View<typeof messageView>;
  flags: string[];
  /** To the queue the message was sent from: the local_id its client gave the message. */
  local_message_id?: string;
}

/** Where a message was, for clients to update their unread counts (flags removed as "read"). */
export type MessageDetails = { type: 'stream'; stream_id: number | null; topic: string; mentioned?: true } | { type: 'private'; user_ids: number[]; mentioned?: true };

export interface UpdateMessageFlagsEvent {
  type: 'update_message_flags';
  op: 'add' | 'remove';
  /** Zulip's deprecated name for `op`. */
  operation: 'add' | 'remove';
  flag: string;
  messages: number[];
  all: boolean;
  message_details?: Record<string, MessageDetails>;
}

export interface UpdateMessageEvent {
  type: 'update_message';
  user_id: number;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
  flags: string[];
  stream_id?: number;
  stream_name?: string;
  propagate_mode?: string;
  orig_subject?: string;
  subject?: string;
  topic_links?: never[];
  new_stream_id?: number;
  orig_content?: string;
  orig_rendered_content?: string;
  content?: string;
  rendered_content?: string;
  is_me_message?: boolean;
}

export type DeleteMessageEvent =
  | ({ type: 'delete_message'; message_type: 'stream'; stream_id: number; topic: string } & DeletedIds)
  | ({ type: 'delete_message'; message_type: 'private' } & DeletedIds);

export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: View<typeof draftView>[] }
  | { type: 'drafts'; op: 'update'; draft: View<typeof draftView> }
  | { type: 'drafts'; op: 'remove'; draft_id: number };

export type NavigationViewEvent =
  | { type: 'navigation_view'; op: 'add'; navigation_view: View<typeof navigationViewView> }
  | { type: 'navigation_view'; op: 'update'; fragment: string; data: { name?: string; is_pinned?: boolean } }
  | { type: 'navigation_view'; op: 'remove'; fragment: string };

export type SavedSnippetsEvent =
  | { type: 'saved_snippets'; op: 'add'; saved_snippet: View<typeof savedSnippetView> }
  | { type: 'saved_snippets'; op: 'update'; saved_snippet: View<typeof savedSnippetView> }
  | { type: 'saved_snippets'; op: 'remove'; saved_snippet_id: number };

export type ScheduledMessagesEvent =
  | { type: 'scheduled_messages'; op: 'add'; scheduled_messages: View<typeof scheduledMessageView>[] }
  | { type: 'scheduled_messages'; op: 'update'; scheduled_message: View<typeof scheduledMessageView> }
  | { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number };

export type RemindersEvent = { type: 'reminders'; op: 'add'; reminders: View<typeof reminderView>[] } | { type: 'reminders'; op: 'remove'; reminder_id: number };

export interface UserStatusEvent {
  type: 'user_status';
  user_id: number;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

/** A reaction added or removed; `user` is Zulip's deprecated copy of who reacted. */
export type ReactionEvent = View<typeof reactionView> & {
  type: 'reaction';
  op: 'add' | 'remove';
  message_id: number;
  user: { user_id: number; email: string; full_name: string; is_mirror_dummy: boolean };
};

/** A submessage added to a message (a poll's vote, a to-do list's task): `content` as sent. */
export interface SubmessageEvent {
  type: 'submessage';
  msg_type: string;
  content: string;
  submessage_id: number;
  sender_id: number;
  message_id: number;
}

/** The user's muted users, whole, after a change. */
export interface MutedUsersEvent {
  type: 'muted_users';
  muted_users: { id: number; timestamp: number }[];
}

export interface UserSettingsEvent {
  type: 'user_settings';
  op: 'update';
  property: string;
  value: SettingValue;
  language_name?: string;
}

/** Settings changes in their pre-`user_settings` shapes (for clients without user_settings_object). */
export type LegacySettingsEvent =
  | { type: 'update_display_settings'; user: string; setting_name: string; setting: SettingValue; language_name?: string }
  | { type: 'update_global_notifications'; user: string; notification_name: string; setting: SettingValue };

export interface UserTopicEvent {
  type: 'user_topic';
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export type TypingOp = 'start' | 'stop';
export type TypingPerson = { user_id: number; email: string };

/** Someone composes a message: in a direct conversation (with everyone in it, the sender too) or
 * a channel's topic. */
export type TypingEvent =
  | { type: 'typing'; op: TypingOp; message_type: 'direct'; sender: TypingPerson; recipients: TypingPerson[] }
  | { type: 'typing'; op: TypingOp; message_type: 'stream'; sender: TypingPerson; stream_id: number; topic: string };

/** Someone edits a message (Zulip's typing_edit_message). */
export interface TypingEditMessageEvent {
  type: 'typing_edit_message';
  op: TypingOp;
  sender_id: number;
  message_id: number;
  recipient: { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };
}

/** A user came online (or changed presence_enabled): in the modern format, keyed by user ID, to
 * clients that declare simplified_presence_events; in the legacy one to older clients. */
export type PresenceEvent =
  | { type: 'presence'; presences: Record<string, ModernPresence> }
  | { type: 'presence'; user_id: number; email: string; server_timestamp: number; presence: { website: LegacyClientPresence } };

export interface RestartEvent {
  type: 'restart';
  zulip_version: string;
  zulip_merge_base: string;
  zulip_feature_level: number;
  server_generation: number;
}

/** Every event the server emits. */
/** Changes to the files a user uploaded, to that user (Zulip's notify_attachment_update). */
export type AttachmentEvent =
  | { type: 'attachment'; op: 'add' | 'update'; attachment: View<typeof attachmentView>; upload_space_used: number }
  | { type: 'attachment'; op: 'remove'; attachment: { id: number }; upload_space_used: number };

/** One custom emoji added or changed, for clients that declared individual_emoji_changes (Zulip
 * 12, feature level 491; newer than the reference). */
export type RealmEmojiChange =
  | { type: 'realm_emoji'; op: 'add'; emoji: ReturnType<typeof realmEmojiView> }
  | { type: 'realm_emoji'; op: 'update_one'; emoji_id: string; data: { deactivated: boolean } };

export type ZulipEvent =
  | RealmUserEvent
  | RealmBotEvent
  | StreamEvent
  | SubscriptionEvent
  | UserGroupEvent
  | ChannelFolderEvent
  | MessageEvent
  | UpdateMessageFlagsEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | DraftsEvent
  | SavedSnippetsEvent
  | NavigationViewEvent
  | ScheduledMessagesEvent
  | RemindersEvent
  | UserStatusEvent
  | ReactionEvent
  | SubmessageEvent
  | MutedUsersEvent
  | UserSettingsEvent
  | LegacySettingsEvent
  | UserTopicEvent
  | TypingEvent
  | TypingEditMessageEvent
  | PresenceEvent
  | RestartEvent
  | AttachmentEvent
  /** One organization setting (about a hundred, a table in organization/settingDefaults.ts). */
  | { type: 'realm'; op: 'update'; property: string; value: string | number | boolean | null }
  | { type: 'realm'; op: 'update_dict'; property: 'default'; data: Record<string, unknown> }
  | { type: 'realm_user_settings_defaults'; op: 'update'; property: string; value: SettingValue }
  | { type: 'realm_emoji'; op: 'update'; realm_emoji: Record<string, ReturnType<typeof realmEmojiView>> }
  | RealmEmojiChange
  | { type: 'alert_words'; alert_words: string[] }
  | { type: 'custom_profile_fields'; fields: View<typeof fieldView>[] }
  | { type: 'default_streams'; default_streams: number[] }
  | { type: 'realm_linkifiers'; realm_linkifiers: View<typeof linkifierView>[] }
  | { type: 'realm_playgrounds'; realm_playgrounds: View<typeof playgroundView>[] }
  | { type: 'realm_export'; exports: View<typeof exportView>[] }
  | { type: 'realm_export_consent'; user_id: number; consented: boolean }
  | { type: 'muted_topics'; muted_topics: [channel: string, topic: string, lastUpdated: number][] }
  | { type: 'has_provider_token'; value: boolean }
  | { type: 'push_device'; push_account_id: string; status: 'active' | 'pending' | 'failed'; error_code: string | null }
  /** Invitations changed: clients showing them fetch GET /invites again. */
  | { type: 'invites_changed' }
  | { type: 'heartbeat' };

export type EventType = ZulipEvent['type'];
