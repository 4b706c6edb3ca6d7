// Push devices (Zulip's E2EE mobile push): registered per user, listed in register's
// `push_devices`, announced by `push_device` events to the user's clients.
import { errors } from '../../errors.js';
import type { PushDeviceRecord } from '../../push/records.js';
import { decodePublicKey, isBase64 } from '../../push/seal.js';
import { readCommand, writeCommand, type ReadContext } from '../context.js';

export type DeviceInput = Omit<PushDeviceRecord, 'registeredAt'>;

const userDevices = (ctx: ReadContext, userId: number): PushDeviceRecord[] => ctx.store.pushDevices.ofOwner(ctx.ownerOf(userId));

const sameDevice = (a: DeviceInput, b: DeviceInput): boolean =>
  a.tokenKind === b.tokenKind && a.pushPublicKey === b.pushPublicKey && a.bouncerPublicKey === b.bouncerPublicKey && a.encryptedPushRegistration === b.encryptedPushRegistration;

export const pushCommands = {
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

  /** The user's devices, or the one with this push account ID. */
  'push.devices': readCommand((ctx, input: { pushAccountId?: number }) =>
    userDevices(ctx, ctx.user.id).filter((device) => input.pushAccountId === undefined || device.pushAccountId === input.pushAccountId),
  ),
};

export const pushInitialState = (ctx: ReadContext) => ({
  push_devices: Object.fromEntries(userDevices(ctx, ctx.user.id).map((device) => [String(device.pushAccountId), { status: 'active', error_code: null }])),
});
