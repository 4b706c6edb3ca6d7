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
