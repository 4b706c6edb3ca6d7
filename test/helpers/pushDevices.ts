// E2EE push devices for tests: a NaCl key pair per device, registered through the API, and the
// device's side of a notification (opening what was sealed to its key).
import sodium from 'libsodium-wrappers';
import * as assert from 'uvu/assert';
import type { ApiClient } from './client.js';
import { assertMatchesReference } from './reference.js';

await sodium.ready;

export const base64 = (bytes: Uint8Array): string => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);

export interface Device {
  pushAccountId: number;
  keys: { publicKey: Uint8Array; privateKey: Uint8Array };
}

export async function registerDevice(client: ApiClient, pushAccountId: number): Promise<Device> {
  const keys = sodium.crypto_box_keypair();
  const response = await client.post('/mobile_push/register', {
    token_kind: 'fcm',
    push_account_id: pushAccountId,
    push_public_key: base64(keys.publicKey),
    bouncer_public_key: 'bouncer-key-1',
    encrypted_push_registration: base64(sodium.randombytes_buf(64)),
  });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /mobile_push/register', response.body);
  return { pushAccountId, keys };
}

/** What the device reads of a payload sealed to its key (throws for another device's). */
export function open(device: Device, sealed: string): Record<string, unknown> {
  const bytes = sodium.crypto_box_seal_open(sodium.from_base64(sealed, sodium.base64_variants.ORIGINAL), device.keys.publicKey, device.keys.privateKey);
  return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
}
