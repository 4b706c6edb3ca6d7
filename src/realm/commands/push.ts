// Push devices (Zulip's E2EE mobile push): registered per user, listed in register's
// `push_devices`, announced by `push_device` events to the user's clients.
import { errors } from '../../errors.js';
import { tokenKey, type PushDeviceRecord, type PushTokenRecord } from '../../push/records.js';
import { decodePublicKey, isBase64 } from '../../push/seal.js';
import { tokenTestBody, tokensByKind } from '../../push/payloads.js';
import { readCommand, writeCommand, type ReadContext } from '../context.js';
import { payloadBase } from './notifications.js';

export type DeviceInput = Omit<PushDeviceRecord, 'registeredAt'>;

const userDevices = (ctx: ReadContext, userId: number): PushDeviceRecord[] => ctx.store.pushDevices.ofOwner(ctx.ownerOf(userId));

const sameDevice = (a: DeviceInput, b: DeviceInput): boolean =>
  a.tokenKind === b.tokenKind && a.pushPublicKey === b.pushPublicKey && a.bouncerPublicKey === b.bouncerPublicKey && a.encryptedPushRegistration === b.encryptedPushRegistration;

export type TokenInput = Pick<PushTokenRecord, 'kind' | 'token' | 'appId'>;

/** Zulip's validate_token: not empty, at most 4,096 characters, and hexadecimal for APNs. */
function checkToken(kind: PushTokenRecord['kind'], token: string): void {
  if (token === '' || token.length > 4096) throw errors.badRequest('Empty or invalid length token');
  if (kind === 'apns' && !/^[0-9a-fA-F]+$/.test(token)) throw errors.badRequest('Invalid APNS token');
}

export const pushCommands = {
  /** Checks a token of the older registration before the relay is told of it. */
  'push.checkToken': readCommand((ctx, input: TokenInput) => {
    if (!ctx.config.pushRelay) throw errors.pushNotConfigured();
    checkToken(input.kind, input.token);
    return {};
  }),

  /** Registers a phone's token; another user of the realm who had it (a phone that changed hands
   * without logging out) loses it, so their notifications stop reaching that phone. */
  'push.addToken': writeCommand((ctx, input: TokenInput) => {
    const user = ctx.user;
    checkToken(input.kind, input.token);
    for (const { userId, row } of ctx.store.pushTokens.ofRealm(ctx.state.realm.id)) {
      if (userId !== user.id && row.kind === input.kind && row.token === input.token) ctx.remove('pushToken', { ...row, userId });
    }
    ctx.save('pushToken', { ...input, userId: user.id, registeredAt: ctx.now });
    return {};
  }),

  'push.removeToken': writeCommand((ctx, input: Omit<TokenInput, 'appId'>) => {
    checkToken(input.kind, input.token);
    const known = ctx.store.pushTokens.get(ctx.ownerOf(ctx.user.id), input.kind, tokenKey(input.token));
    if (!known) throw errors.badRequest('Token does not exist');
    ctx.remove('pushToken', { ...known, userId: ctx.user.id });
    return {};
  }),

  'push.register': writeCommand((ctx, input: DeviceInput) => {
    const user = ctx.user;
    if (!ctx.config.pushRelay) throw errors.pushNotConfigured();
    if (!decodePublicKey(input.pushPublicKey)) throw errors.badRequest('Invalid push_public_key');
    if (input.bouncerPublicKey.trim() === '') throw errors.badRequest('Invalid bouncer_public_key');
    if (!isBase64(input.encryptedPushRegistration)) throw errors.badRequest('Invalid encrypted_push_registration');
    const known = ctx.store.pushDevices.get(ctx.ownerOf(user.id), input.pushAccountId);
    if (known && sameDevice(known, input)) return {};
    ctx.store.pushDevices.put(ctx.ownerOf(user.id), { ...input, registeredAt: ctx.now });
    // The relay receives the registration with each notification, so the device is usable at once.
    ctx.emit({ type: 'push_device', push_account_id: String(input.pushAccountId), status: 'active', error_code: null }, [user.id]);
    return {};
  }),

  /** The relay request of a test notification to the user's phones of the older registration, or
   * to the one with this token. */
  'push.testTokens': readCommand((ctx, input: { token?: string }) => {
    if (!ctx.config.pushRelay) throw errors.pushNotConfigured();
    const tokens = ctx.store.pushTokens.ofOwner(ctx.ownerOf(ctx.user.id)).filter((row) => input.token === undefined || row.token === input.token);
    if (tokens.length === 0) throw input.token === undefined ? errors.noActivePushDevice() : errors.invalidPushDeviceToken();
    return tokenTestBody(payloadBase(ctx, ctx.user.id), ctx.now, tokensByKind(tokens));
  }),

  /** The user's devices, or the one with this push account ID. */
  'push.devices': readCommand((ctx, input: { pushAccountId?: number }) =>
    userDevices(ctx, ctx.user.id).filter((device) => input.pushAccountId === undefined || device.pushAccountId === input.pushAccountId),
  ),
};

export const pushInitialState = (ctx: ReadContext) => ({
  push_devices: Object.fromEntries(userDevices(ctx, ctx.user.id).map((device) => [String(device.pushAccountId), { status: 'active', error_code: null }])),
});
