// Mobile push endpoints: device registration and the test notifications (spec endpoint 21).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { errors } from '../errors.js';
import type { UserRequest } from '../http/route.js';
import { notifyRelay, postToRelay, relayPaths, sealedDeliveries } from '../push/relay.js';
import type { PushTokenRecord } from '../push/records.js';
import { realmUrl } from '../organization/records.js';
import { nowSeconds } from '../clock.js';

export const registerPushDevice = (request: UserRequest, params: Params<typeof schemas.registerPushDevice>) =>
  request.realm.ask('push.register', request.user.userId, {
    tokenKind: params.token_kind,
    pushAccountId: params.push_account_id,
    pushPublicKey: params.push_public_key,
    bouncerPublicKey: params.bouncer_public_key,
    encryptedPushRegistration: params.encrypted_push_registration,
  });

/** `device_id` is the spec's name for the device's push account ID, Zulip's `push_account_id`. */
export async function sendTestPushNotification(request: UserRequest, params: Params<typeof schemas.e2eeTestNotify>) {
  const devices = await request.realm.ask('push.devices', request.user.userId, { pushAccountId: params.device_id ?? params.push_account_id });
  if (devices.length === 0) throw errors.noActivePushDevice();
  const realm = await request.realm.ask('realm.summary', null, {});
  const url = realmUrl(realm, request.config);
  const payload = { type: 'test', realm_url: url, realm_name: realm.name, user_id: request.user.userId, time: nowSeconds(request.config.clock) };
  await notifyRelay(request.config.pushRelay, {
    realm_url: url,
    user_id: request.user.userId,
    devices: sealedDeliveries(devices, payload),
  });
  return {};
}

/** The older test notification (POST /mobile_push/test_notification): through the relay's token
 * API to the user's registered tokens, or the one named. */
export async function sendLegacyTestPushNotification(request: UserRequest, params: Params<typeof schemas.testNotify>) {
  const body = await request.realm.ask('push.testTokens', request.user.userId, { token: params.token });
  await postToRelay(request.config.pushRelay, relayPaths.tokenNotify, body);
  return {};
}

/** Zulip's token kinds on the relay's token API. */
const relayTokenKind = { apns: 1, fcm: 2 } as const;

/** The older registration (Zulip's mobile app before E2EE): the relay learns the token first, so a
 * refusal there registers nothing. */
async function addToken(request: UserRequest, kind: PushTokenRecord['kind'], token: string, appId: string | null) {
  const input = { kind, token, appId };
  await request.realm.ask('push.checkToken', request.user.userId, input);
  await postToRelay(request.config.pushRelay, relayPaths.tokenRegister, { user_id: request.user.userId, token, token_kind: relayTokenKind[kind], ...(appId === null ? {} : { ios_app_id: appId }) });
  return request.realm.ask('push.addToken', request.user.userId, input);
}

async function removeToken(request: UserRequest, kind: PushTokenRecord['kind'], token: string) {
  await request.realm.ask('push.removeToken', request.user.userId, { kind, token });
  await postToRelay(request.config.pushRelay, relayPaths.tokenUnregister, { user_id: request.user.userId, token, token_kind: relayTokenKind[kind] });
  return {};
}

export const addFcmToken = (request: UserRequest, params: Params<typeof schemas.addFcmToken>) => addToken(request, 'fcm', params.token, null);
export const addApnsToken = (request: UserRequest, params: Params<typeof schemas.addApnsToken>) => addToken(request, 'apns', params.token, params.appid);
export const removeFcmToken = (request: UserRequest, params: Params<typeof schemas.removeFcmToken>) => removeToken(request, 'fcm', params.token);
export const removeApnsToken = (request: UserRequest, params: Params<typeof schemas.removeApnsToken>) => removeToken(request, 'apns', params.token);
