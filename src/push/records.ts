import { createHash } from 'node:crypto';

// A user's registered push device (Zulip's E2EE PushDevice): the key notifications are encrypted
// with, and the registration the relay decrypts to find the device's FCM/APNs token.
export interface PushDeviceRecord {
  /** The client's own random ID for this account on the device. */
  pushAccountId: number;
  tokenKind: 'fcm' | 'apns';
  /** NaCl public key (32 bytes), base64: notifications are sealed to it. */
  pushPublicKey: string;
  /** Which of the relay's public keys `encryptedPushRegistration` is sealed to. */
  bouncerPublicKey: string;
  /** The client's PushRegistration (token, token_kind, timestamp, ios_app_id), sealed to the relay. */
  encryptedPushRegistration: string;
  registeredAt: number;
}

/** A phone registered through Zulip's older token endpoints (POST /users/me/android_gcm_reg_id,
 * /users/me/apns_device_token): notified through the relay's token API, unencrypted. */
export interface PushTokenRecord {
  kind: 'fcm' | 'apns';
  token: string;
  /** The iOS app's ID (APNs only). */
  appId: string | null;
  registeredAt: number;
}

/** A token's place in keys: its SHA-256 (tokens may be longer than LMDB takes in a key). */
export const tokenKey = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Which of the relay's APIs a notification goes through: sealed to E2EE devices, or to tokens. */
export type PushRoute = 'e2ee' | 'token';

/** A notification waiting in the outbox (written in the commit of the change that causes it, sent
 * after, removed once the relay acknowledged it). */
export interface OutboxRecord {
  realmId: number;
  id: number;
  userId: number;
  route: PushRoute;
  /** A new message, or the removal of notifications of messages since read. */
  kind: 'message' | 'remove';
  messageIds: number[];
  /** UNIX seconds it was queued: a notification that cannot be delivered for a day is dropped. */
  queuedAt: number;
  attempts: number;
  /** When it is tried next (milliseconds on the server's clock). */
  dueAt: number;
}

/** A message whose push notification the relay took, until the user reads it (Zulip's
 * active_mobile_push_notification flag): reading it sends a removal. */
export interface ShownRecord {
  messageId: number;
  route: PushRoute;
}
