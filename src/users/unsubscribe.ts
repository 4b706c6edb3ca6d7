// One-click unsubscribe links of missed-message e-mails: the user's ID and an HMAC of it keyed by
// their API key, so a link needs no stored state and stops working when the key is regenerated.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UserRecord } from './records.js';

const token = (user: Pick<UserRecord, 'id' | 'apiKey'>): string => createHmac('sha256', user.apiKey).update(`missed_messages:${user.id}`).digest('hex').slice(0, 32);

/** The link's path at the realm's URL. */
export const unsubscribePath = (user: Pick<UserRecord, 'id' | 'apiKey'>): string => `/accounts/unsubscribe/missed_messages/${user.id}/${token(user)}`;

export function isUnsubscribeToken(user: Pick<UserRecord, 'id' | 'apiKey'>, candidate: string): boolean {
  const expected = Buffer.from(token(user));
  const given = Buffer.from(candidate);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
