// Short-lived, single-use grants that stand for a user where no credentials can travel: a
// browser opening the event WebSocket (it cannot set an Authorization header), or the state of a
// video provider's OAuth flow coming back through the browser. A token carries what it grants (its
// realm, user, expiry and a serial), signed with HMAC-SHA256 under a key made per process, so that
// any thread given the share checks it alone; that it was used is recorded in shared memory, in
// the slot of its serial. Nothing is stored: a restart voids them, and the client asks again.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';

/** Plain data, for a worker's `workerData` or a port. */
export interface GrantsShare {
  /** What tokens are signed with. */
  readonly key: Uint8Array;
  /** Uint32: the next serial. */
  readonly serial: SharedArrayBuffer;
  /** Int32 per slot: the round (serial / SLOTS) of the last token issued in it, or USED. */
  readonly slots: SharedArrayBuffer;
}

/** Serial SLOTS later, a slot is another token's: an unused token is refused once SLOTS more were
 * issued (65,536 within its lifetime of seconds or minutes), and its client asks again. Serials
 * wrap around at 2^32, a multiple of SLOTS, so the slots go on in turn; a token issued 2^32 grants
 * before one of the same slot and round has long expired. */
const SLOT_BITS = 16;
const SLOTS = 1 << SLOT_BITS;
/** No round is negative. */
const USED = -1;
// A token's bytes: realm, user and expiry (ms) as doubles, the serial, then the MAC's first half.
const PAYLOAD_BYTES = 3 * 8 + 4;
const MAC_BYTES = 16;

/** A share of its own, for a process's first instance. */
export const newGrantsShare = (): GrantsShare => ({ key: randomBytes(32), serial: new SharedArrayBuffer(Uint32Array.BYTES_PER_ELEMENT), slots: new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT) });

export class Grants {
  private readonly key: KeyObject;
  private readonly serial: Uint32Array;
  private readonly slots: Int32Array;

  constructor(
    readonly ttlSeconds: number,
    private readonly clock: Clock = systemClock,
    readonly share: GrantsShare = newGrantsShare(),
  ) {
    this.key = createSecretKey(share.key);
    this.serial = new Uint32Array(share.serial);
    this.slots = new Int32Array(share.slots);
  }

  issue(realmId: number, userId: number, now = this.clock.now()): string {
    const serial = Atomics.add(this.serial, 0, 1);
    Atomics.store(this.slots, serial % SLOTS, serial >>> SLOT_BITS);
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeDoubleBE(realmId, 0);
    payload.writeDoubleBE(userId, 8);
    payload.writeDoubleBE(now + this.ttlSeconds * 1000, 16);
    payload.writeUInt32BE(serial, 24);
    return Buffer.concat([payload, this.mac(payload)]).toString('base64url');
  }

  /** The user a token was issued to, once (on any instance of this share); undefined when it is
   * not one we issued, used, expired or of another realm. Any try uses a token we issued, even too
   * late or for another realm. */
  redeem(token: string, realmId: number, now = this.clock.now()): number | undefined {
    const bytes = Buffer.from(token, 'base64url');
    // Decoding skips what is not base64url: only the exact text that was issued is the token.
    if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES || bytes.toString('base64url') !== token) return undefined;
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(payload))) return undefined;
    const serial = payload.readUInt32BE(24);
    const round = serial >>> SLOT_BITS;
    if (Atomics.compareExchange(this.slots, serial % SLOTS, round, USED) !== round) return undefined;
    if (payload.readDoubleBE(16) < now || payload.readDoubleBE(0) !== realmId) return undefined;
    return payload.readDoubleBE(8);
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
