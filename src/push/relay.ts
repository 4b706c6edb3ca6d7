// The push relay client: one HTTP request per notification batch, its failures turned into the
// API's four push errors. The relay's reply body is not needed beyond its status.
import type { PushRelay } from '../config.js';
import { errors } from '../errors.js';

/** One device's part of a notification: its registration for the relay, the sealed payload. */
export interface RelayDelivery {
  push_account_id: number;
  bouncer_public_key: string;
  encrypted_push_registration: string;
  encrypted_data: string;
}

const NOTIFY_PATH = '/api/v1/remotes/push/e2ee/notify';

/** Posts a notification to the relay; throws FAILED_TO_CONNECT_BOUNCER (network error or timeout),
 * INTERNAL_SERVER_ERROR_ON_BOUNCER (5xx) or ADMIN_ACTION_REQUIRED (the relay refuses this server). */
export async function notifyRelay(relay: PushRelay | null, body: { realm_url: string; user_id: number; devices: RelayDelivery[] }): Promise<void> {
  if (!relay) throw errors.pushAdminActionRequired();
  let response: Response;
  try {
    response = await fetch(`${relay.url}${NOTIFY_PATH}`, {
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
