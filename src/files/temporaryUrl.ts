// Temporary file URLs (GET /user_uploads/{realm_id_str}/{filename}, Zulip's get-file-temporary-url):
// a link that works without credentials for a minute. The token carries the file's path, the user it
// was made for and its expiry, signed with that user's API key: it needs no stored state, any node
// can check it, and regenerating the key revokes it. The file is served only while that user may
// still read it.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Zulip's temporary URLs last 60 seconds. */
export const TEMPORARY_URL_SECONDS = 60;

export interface TemporaryGrant {
  pathId: string;
  userId: number;
  expires: number;
}

const mac = (apiKey: string, payload: string): string => createHmac('sha256', apiKey).update(`temporary_upload:${payload}`).digest('base64url');

export function temporaryToken(apiKey: string, grant: TemporaryGrant): string {
  const payload = Buffer.from(JSON.stringify([grant.pathId, grant.userId, grant.expires])).toString('base64url');
  return `${payload}.${mac(apiKey, payload)}`;
}

/** What a token claims, unchecked: the user whose key must have signed it. */
export function tokenClaim(token: string): TemporaryGrant | undefined {
  const [payload] = token.split('.');
  try {
    const [pathId, userId, expires] = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as unknown[];
    if (typeof pathId !== 'string' || typeof userId !== 'number' || typeof expires !== 'number') return undefined;
    return { pathId, userId, expires };
  } catch {
    return undefined;
  }
}

/** Whether the token was signed with this key. */
export function isSignedBy(apiKey: string, token: string): boolean {
  const [payload, given] = token.split('.');
  if (payload === undefined || given === undefined) return false;
  const expected = Buffer.from(mac(apiKey, payload));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
