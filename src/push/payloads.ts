// The payloads of message notifications, in Zulip's shapes: the E2EE payload sealed to each device
// (api/mobile-notifications), and the FCM/APNs payloads of the relay's token API
// (push_notifications.py: get_message_payload_gcm/apns, get_remove_payload_gcm/apns).
import type { MessageRecord } from '../messages/records.js';

/** What a payload says of the realm and of the user it is for. */
export interface PayloadBase {
  realmUrl: string;
  realmName: string;
  realmId: number;
  userId: number;
}

/** What a payload says of a message. */
export interface MessageSummary {
  message: MessageRecord;
  senderName: string;
  senderEmail: string;
  senderAvatarUrl: string;
  /** The channel's name (channel messages). */
  channelName: string | null;
  /** The message as plain text. */
  text: string;
}

const CONTENT_LIMIT = 200;

/** Zulip's get_mobile_push_content truncation: 200 characters, then an ellipsis. */
export function pushContent(text: string): { content: string; truncated: boolean } {
  const points = [...text];
  return points.length <= CONTENT_LIMIT ? { content: text, truncated: false } : { content: `${points.slice(0, CONTENT_LIMIT).join('')}…`, truncated: true };
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' };

/** Rendered message HTML as the plain text a notification shows. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<\/p>\s*<p>/g, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_all, name: string) => entities[name]!)
    .trim();
}

/** Group direct messages name every participant; one-to-one ones only the sender. */
const groupParticipants = (message: MessageRecord): number[] | undefined => (message.type === 'private' && message.participants.length > 2 ? message.participants : undefined);

/** The E2EE payload of a new message (type "message"). */
export function e2eeMessagePayload(base: PayloadBase, summary: MessageSummary) {
  const { message } = summary;
  const where =
    message.type === 'stream'
      ? { recipient_type: 'channel', channel_id: message.channelId, channel_name: summary.channelName, topic: message.topic }
      : { recipient_type: 'direct', ...(groupParticipants(message) ? { recipient_user_ids: groupParticipants(message) } : {}) };
  return {
    type: 'message',
    message_id: message.id,
    sender_id: message.senderId,
    sender_full_name: summary.senderName,
    sender_avatar_url: summary.senderAvatarUrl,
    ...where,
    content: pushContent(summary.text).content,
    time: message.timestamp,
    realm_url: base.realmUrl,
    realm_name: base.realmName,
    user_id: base.userId,
  };
}

/** The E2EE payload removing notifications of messages now read (type "remove"). */
export const e2eeRemovePayload = (base: PayloadBase, messageIds: readonly number[]) => ({
  type: 'remove',
  message_ids: [...messageIds],
  realm_url: base.realmUrl,
  realm_name: base.realmName,
  user_id: base.userId,
});

/** What every token payload carries (Zulip's get_base_payload). */
const tokenBase = (base: PayloadBase) => ({
  server: new URL(base.realmUrl).host,
  realm_id: base.realmId,
  realm_name: base.realmName,
  realm_uri: base.realmUrl,
  realm_url: base.realmUrl,
  user_id: base.userId,
});

function tokenWhere(summary: MessageSummary) {
  const { message } = summary;
  if (message.type === 'stream') return { recipient_type: 'stream', stream: summary.channelName, stream_id: message.channelId, topic: message.topic };
  const group = groupParticipants(message);
  return group ? { recipient_type: 'private', pm_users: group.join(',') } : { recipient_type: 'private' };
}

function alertTitle(summary: MessageSummary): string {
  const { message } = summary;
  if (message.type === 'stream') return `#${summary.channelName} > ${message.topic}`;
  return message.participants.length > 2 ? `${summary.senderName} (group)` : summary.senderName;
}

/** The relay token API's request body for a new message (Zulip's bouncer /remotes/push/notify). */
export function tokenMessageBody(base: PayloadBase, summary: MessageSummary, tokens: { android: string[]; apple: string[] }) {
  const { message } = summary;
  const { content, truncated } = pushContent(summary.text);
  const where = tokenWhere(summary);
  const sender = { sender_id: message.senderId, sender_email: summary.senderEmail };
  return {
    user_id: base.userId,
    gcm_payload: {
      ...tokenBase(base),
      ...where,
      ...sender,
      event: 'message',
      zulip_message_id: message.id,
      time: message.timestamp,
      content,
      content_truncated: truncated,
      sender_full_name: summary.senderName,
      sender_avatar_url: summary.senderAvatarUrl,
    },
    gcm_options: { priority: 'high' },
    apns_payload: {
      alert: { title: alertTitle(summary), ...(message.type === 'stream' ? { subtitle: `${summary.senderName}:` } : {}), body: content },
      sound: 'default',
      badge: 0,
      custom: { zulip: { ...tokenBase(base), ...where, ...sender, message_ids: [message.id], time: message.timestamp } },
    },
    android_devices: tokens.android,
    apple_devices: tokens.apple,
  };
}

/** Tokens as the relay's token API takes them: Android's (FCM) and Apple's (APNs). */
export const tokensByKind = (tokens: readonly { kind: 'fcm' | 'apns'; token: string }[]) => ({
  android: tokens.filter((token) => token.kind === 'fcm').map((token) => token.token),
  apple: tokens.filter((token) => token.kind === 'apns').map((token) => token.token),
});

/** The relay token API's request body of a test notification (Zulip's send_test_push_notification). */
export function tokenTestBody(base: PayloadBase, time: number, tokens: { android: string[]; apple: string[] }) {
  return {
    user_id: base.userId,
    gcm_payload: { ...tokenBase(base), event: 'test', time },
    gcm_options: { priority: 'high' },
    apns_payload: {
      alert: { title: 'Test notification', body: `This is a test notification from ${base.realmName} (${base.realmUrl}).` },
      sound: 'default',
      custom: { zulip: { ...tokenBase(base), event: 'test' } },
    },
    android_devices: tokens.android,
    apple_devices: tokens.apple,
  };
}

/** The relay token API's request body removing notifications of messages now read. */
export function tokenRemoveBody(base: PayloadBase, messageIds: readonly number[], tokens: { android: string[]; apple: string[] }) {
  return {
    user_id: base.userId,
    gcm_payload: { ...tokenBase(base), event: 'remove', zulip_message_ids: messageIds.join(','), zulip_message_id: messageIds[0] },
    gcm_options: { priority: 'normal' },
    apns_payload: { badge: 0, custom: { zulip: { ...tokenBase(base), event: 'remove', zulip_message_ids: messageIds.join(',') } } },
    android_devices: tokens.android,
    apple_devices: tokens.apple,
  };
}
