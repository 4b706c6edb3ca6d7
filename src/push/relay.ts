// The push relay client: one HTTP request per notification batch, its failures turned into the
// API's four push errors. The relay's reply body is not needed beyond its status.
import type { PushRelay } from '../config.js';
import { errors } from '../errors.js';
import type { PushDeviceRecord } from './records.js';
import { decodePublicKey, seal } from './seal.js';

/** One device's part of a notification: its registration for the relay, the sealed payload. */
export interface RelayDelivery {
  push_account_id: number;
  bouncer_public_key: string;
  encrypted_push_registration: string;
  encrypted_data: string;
}

/** The payload sealed to each device's key, with the registration the relay needs to reach it. */
export const sealedDeliveries = (devices: readonly PushDeviceRecord[], payload: object): RelayDelivery[] =>
  devices.map((device) => ({
    push_account_id: device.pushAccountId,
    bouncer_public_key: device.bouncerPublicKey,
    encrypted_push_registration: device.encryptedPushRegistration,
    // Registration checked the key; a record that no longer decodes is a broken store.
    encrypted_data: seal(payload, decodePublicKey(device.pushPublicKey)!),
  }));

/** The relay's paths: E2EE notifications, and the token API of the older registrations. */
export const relayPaths = {
  e2eeNotify: '/api/v1/remotes/push/e2ee/notify',
  tokenNotify: '/api/v1/remotes/push/notify',
  tokenRegister: '/api/v1/remotes/push/register',
  tokenUnregister: '/api/v1/remotes/push/unregister',
} as const;

/** The body of an E2EE notification: each device's registration and sealed payload. */
export interface E2eeNotifyBody {
  realm_url: string;
  user_id: number;
  devices: RelayDelivery[];
}

/** Posts a notification to the relay; throws FAILED_TO_CONNECT_BOUNCER (network error or timeout),
 * INTERNAL_SERVER_ERROR_ON_BOUNCER (5xx) or ADMIN_ACTION_REQUIRED (the relay refuses this server). */
export const notifyRelay = (relay: PushRelay | null, body: E2eeNotifyBody): Promise<void> => postToRelay(relay, relayPaths.e2eeNotify, body);

/** Posts a JSON body to one of the relay's paths, with the errors of `notifyRelay`. */
export async function postToRelay(relay: PushRelay | null, path: string, body: object): Promise<void> {
  if (!relay) throw errors.pushAdminActionRequired();
  let response: Response;
  try {
    response = await fetch(`${relay.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(relay.credentials).toString('base64')}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(relay.timeoutMs),
    });
    await response.arrayBuffer();
  } catch {
    throw errors.failedToConnectBouncer();
  }
  if (response.status >= 500) throw errors.bouncerServerError();
  if (!response.ok) throw errors.pushAdminActionRequired();
}
