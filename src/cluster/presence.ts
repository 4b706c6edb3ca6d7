// Presence in a cluster: the owner of a realm holds its presence table in memory (a hot path, never
// in the realm's log); every changed record is also put in the KV bucket `parley_presence`
// (`<realm>.<user>`, kept for presence's history window), and a node taking the realm over starts
// its table from there. Records change at most once a minute per user (Zulip's update frequency).
import type { KV } from '@nats-io/kv';
import type { PresenceKeeper } from '../realm/links.js';
import type { PresenceRecord, PresenceSnapshot } from '../users/presence.js';
import { kvCodec } from './watched.js';

const keyOf = (realmId: number, userId: number): string => `${realmId}.${userId}`;

/** The keeper of a realm's presence, with the records the bucket holds for it now: read in one pass
 * (an ordered consumer over the realm's keys; a get per user took seconds at 10,000 users). Entries
 * come oldest first, so a key's later entry replaces an earlier one, and a deletion drops it. */
export async function presenceKeeper(bucket: KV, realmId: number): Promise<PresenceKeeper> {
  const records = new Map<number, PresenceRecord>();
  for await (const entry of await bucket.history({ key: `${realmId}.*` })) {
    const userId = Number(entry.key.split('.')[1]);
    if (entry.operation === 'PUT') records.set(userId, kvCodec.unpack(entry.value) as PresenceRecord);
    else records.delete(userId);
  }
  const users = [...records];
  const saved: PresenceSnapshot | undefined = users.length === 0 ? undefined : { lastUpdateId: users.reduce((newest, [, record]) => Math.max(newest, record.lastUpdateId), 0), users };
  return {
    saved,
    keep: async (realm, records) => {
      await Promise.all(records.map(([userId, record]) => (record ? bucket.put(keyOf(realm, userId), kvCodec.pack(record)) : bucket.delete(keyOf(realm, userId)))));
    },
  };
}
