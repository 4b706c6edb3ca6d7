// Short-lived, single-use grants that stand for a user where no credentials can travel: a
// browser opening the event WebSocket (it cannot set an Authorization header), or the state of a
// video provider's OAuth flow coming back through the browser. Kept in memory only: a restart
// voids them, and the client asks again.
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';

interface Grant {
  realmId: number;
  userId: number;
  expiresAt: number;
}

export class Grants {
  private readonly grants = new Map<string, Grant>();

  constructor(
    readonly ttlSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {}

  issue(realmId: number, userId: number, now = this.clock.now()): string {
    this.sweep(now);
    const token = randomBytes(24).toString('base64url');
    this.grants.set(token, { realmId, userId, expiresAt: now + this.ttlSeconds * 1000 });
    return token;
  }

  /** The user a token was issued to, once; undefined when unknown, used or expired. */
  redeem(token: string, realmId: number, now = this.clock.now()): number | undefined {
    const grant = this.grants.get(token);
    this.grants.delete(token);
    if (!grant || grant.expiresAt < now || grant.realmId !== realmId) return undefined;
    return grant.userId;
  }

  private sweep(now: number): void {
    for (const [token, grant] of this.grants) if (grant.expiresAt < now) this.grants.delete(token);
  }
}
