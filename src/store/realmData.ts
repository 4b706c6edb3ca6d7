// A realm's rows across the store: the tables keyed by realm, and the rows of its users, channels
// and messages in the server-wide tables. What a snapshot holds, what a digest covers, and what a
// node drops before it rebuilds a realm.
import { createHash } from 'node:crypto';
import type { Key } from 'lmdb';
import { changeCodec, type Change } from './changes.js';
import type { Store } from './store.js';

/** Tables whose keys start with the realm's ID. */
const realmKeyed = [
  'users', 'groups', 'channels', 'subscriptions', 'folders', 'profileFields', 'linkifiers', 'attachments', 'realmEmoji', 'playgrounds', 'invites',
  'userTopics', 'drafts', 'savedSnippets', 'navigationViews', 'scheduledMessages', 'pushDevices',
];
/** Server-wide tables keyed by a user, a channel or a message of the realm first. */
const userKeyed = ['userMessageRows', 'senderMessages'];
const channelKeyed = ['channelMessages', 'topicMessages'];
const messageKeyed = ['messages', 'headers'];

/** Every row of the realm, table by table in key order, each value in the change encoding. */
export function* realmRows(store: Store, realmId: number): Generator<Change & { 2: Uint8Array }> {
  const table = (name: string) => store.tables.get(name)!;
  function* range(name: string, start: Key, end: Key): Generator<Change & { 2: Uint8Array }> {
    for (const { key, value } of table(name).getRange({ start, end })) yield [name, key, changeCodec.pack(value)];
  }
  const realm = table('realms').get(realmId);
  if (realm !== undefined) yield ['realms', realmId, changeCodec.pack(realm)];
  for (const name of realmKeyed) yield* range(name, [realmId], [realmId + 1]);
  const userIds = [...store.users.ofRealm(realmId)].map((user) => user.id);
  const channelIds = [...store.channels.ofRealm(realmId)].map((channel) => channel.id);
  for (const name of userKeyed) for (const id of userIds) yield* range(name, [id], [id + 1]);
  for (const name of channelKeyed) for (const id of channelIds) yield* range(name, [id], [id + 1]);
  const messageIds = userIds.flatMap((id) => [...store.sentBy(id)]).sort((a, b) => a - b);
  for (const name of messageKeyed) {
    for (const id of messageIds) {
      const value = table(name).get(id);
      if (value !== undefined) yield [name, id, changeCodec.pack(value)];
    }
  }
  for (const prefix of [`dm:${realmId}:`, `dmh:${realmId}:`]) yield* range('meta', prefix, `${prefix}\uffff`);
}

/** A digest of the realm's rows: two stores with the same realm state give the same digest. */
export function realmDigest(store: Store, realmId: number): string {
  const hash = createHash('sha256');
  for (const row of realmRows(store, realmId)) hash.update(changeCodec.pack(row));
  return hash.digest('hex');
}
