// Who is notified of a new message, by mobile push or by e-mail: Zulip's NotificationData rules,
// written once for both media. Pure: the caller gathers the recipient's flags, subscription, topic
// policy and whether they are connected (hold an event queue).
import type { SubscriptionRecord } from '../channels/records.js';
import type { TopicVisibility } from '../machines/topic.js';
import { hasMuted, type UserRecord } from '../users/records.js';
import { userSetting, type UserSettingName } from '../users/settings.js';
import { Flag } from './records.js';

export type Medium = 'push' | 'email';

/** Why a recipient is notified (Zulip's trigger names). */
export type Trigger = 'direct_message' | 'mentioned' | 'wildcard_mentioned' | 'followed_topic' | 'alert_word' | 'stream';

export interface NotificationCandidate {
  user: UserRecord;
  senderId: number;
  /** The recipient's flags on the message (Flag bits). */
  flags: number;
  /** Null for a direct message. */
  subscription: SubscriptionRecord | null;
  /** The recipient's visibility policy for the message's topic. */
  topicPolicy: TopicVisibility;
  /** Whether the recipient holds an event queue (a client is connected). */
  connected: boolean;
}

/** The settings each medium reads, by rule. */
const settingsOf: Record<Medium, { offline: UserSettingName; followed: UserSettingName; stream: UserSettingName; subscription: 'pushNotifications' | 'emailNotifications' }> = {
  push: { offline: 'enable_offline_push_notifications', followed: 'enable_followed_topic_push_notifications', stream: 'enable_stream_push_notifications', subscription: 'pushNotifications' },
  email: { offline: 'enable_offline_email_notifications', followed: 'enable_followed_topic_email_notifications', stream: 'enable_stream_email_notifications', subscription: 'emailNotifications' },
};

const WILDCARD = Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/** Why `candidate` gets a notification of this medium, or null when they get none. A personal or
 * group mention notifies even in a muted topic or channel, as in Zulip; wildcard mentions, alert
 * words, followed topics and channel notifications do not. E-mail goes only to users with no
 * client connected; push also to connected ones who asked for it (enable_online_push_notifications). */
export function notificationTrigger(medium: Medium, candidate: NotificationCandidate): Trigger | null {
  const { user, flags, subscription, topicPolicy } = candidate;
  if (user.id === candidate.senderId || !user.isActive || user.isBot || hasMuted(user, candidate.senderId)) return null;
  if (flags & Flag.read) return null;
  if (candidate.connected && (medium === 'email' || userSetting(user, 'enable_online_push_notifications') !== true)) return null;
  const names = settingsOf[medium];
  const setting = (name: UserSettingName) => userSetting(user, name) === true;
  const offline = setting(names.offline);
  if (subscription === null) return offline ? 'direct_message' : null;
  if (flags & Flag.mentioned && offline) return 'mentioned';
  const followed = topicPolicy === 'followed';
  const quiet = topicPolicy === 'muted' || (subscription.isMuted && topicPolicy === 'inherit');
  if (quiet) return null;
  const wildcardsNotify = (followed && setting('enable_followed_topic_wildcard_mentions_notify')) || (subscription.wildcardMentionsNotify ?? setting('wildcard_mentions_notify'));
  if (flags & WILDCARD && offline && wildcardsNotify) return 'wildcard_mentioned';
  if (followed && setting(names.followed)) return 'followed_topic';
  if (medium === 'push' && flags & Flag.has_alert_word) return 'alert_word';
  if (subscription[names.subscription] ?? setting(names.stream)) return 'stream';
  return null;
}

/** A user's missed messages waiting to be e-mailed together once the batching period is over. */
export interface EmailBatchRecord {
  realmId: number;
  userId: number;
  /** UNIX seconds: when the e-mail goes out. */
  dueAt: number;
  messageIds: number[];
  /** Failed sending attempts so far. */
  attempts: number;
}
