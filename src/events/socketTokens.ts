// Short-lived, single-use tokens that let a browser open the event WebSocket, since browsers
// cannot set an Authorization header on a WebSocket. Kept in memory only: a restart voids them.
import { randomBytes } from 'node:crypto';

export const SOCKET_TOKEN_TTL_SECONDS = 30;

interface Grant {
  realmId: number;
  userId: number;
  expiresAt: number;
}

export class SocketTokens {
  private readonly grants = new Map<string, Grant>();

  issue(realmId: number, userId: number, now = Date.now()): string {
    this.sweep(now);
    const token = randomBytes(24).toString('base64url');
    this.grants.set(token, { realmId, userId, expiresAt: now + SOCKET_TOKEN_TTL_SECONDS * 1000 });
    return token;
  }

  /** The user a token was issued to, once; undefined when unknown, used or expired. */
  redeem(token: string, realmId: number, now = Date.now()): number | undefined {
    const grant = this.grants.get(token);
    this.grants.delete(token);
    if (!grant || grant.expiresAt < now || grant.realmId !== realmId) return undefined;
    return grant.userId;
  }

  private sweep(now: number): void {
    for (const [token, grant] of this.grants) if (grant.expiresAt < now) this.grants.delete(token);
  }
}
