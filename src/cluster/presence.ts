// Presence in a cluster: the owner of a realm holds its presence table in memory (a hot path, never
// in the realm's log); every changed record is also put in the KV bucket `parley_presence`
// (`<realm>.<user>`, kept for presence's history window), and a node taking the realm over starts
// its table from there. Records change at most once a minute per user (Zulip's update frequency).
import type { KV } from '@nats-io/kv';
import type { PresenceKeeper } from '../realm/links.js';
import type { PresenceRecord, PresenceSnapshot } from '../users/presence.js';
import { kvCodec } from './watched.js';

const keyOf = (realmId: number, userId: number): string => `${realmId}.${userId}`;

/** The keeper of a realm's presence, with the records the bucket holds for it now. */
export async function presenceKeeper(bucket: KV, realmId: number): Promise<PresenceKeeper> {
  const users: [number, PresenceRecord][] = [];
  const keys: string[] = [];
  for await (const key of await bucket.keys(`${realmId}.*`)) keys.push(key);
  await Promise.all(
    keys.map(async (key) => {
      const entry = await bucket.get(key);
      if (entry?.operation === 'PUT') users.push([Number(key.split('.')[1]), kvCodec.unpack(entry.value) as PresenceRecord]);
    }),
  );
  const saved: PresenceSnapshot | undefined = users.length === 0 ? undefined : { lastUpdateId: users.reduce((newest, [, record]) => Math.max(newest, record.lastUpdateId), 0), users };
  return {
    saved,
    keep: async (realm, records) => {
      await Promise.all(records.map(([userId, record]) => (record ? bucket.put(keyOf(realm, userId), kvCodec.pack(record)) : bucket.delete(keyOf(realm, userId)))));
    },
  };
}
