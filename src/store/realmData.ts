// A realm's rows across the store: the tables keyed by realm, and the rows of its users, channels
// and messages in the server-wide tables. What a snapshot holds, what a digest covers, and what a
// node drops before it rebuilds a realm. Read in one read transaction when given one, so the rows
// are those of one moment even while writes go on.
import { createHash } from 'node:crypto';
import type { Key, Transaction } from 'lmdb';
import { changeCodec, type Change } from './changes.js';
import type { Store } from './store.js';

/** Tables whose keys start with the realm's ID. */
const realmKeyed = [
  'users', 'groups', 'channels', 'subscriptions', 'folders', 'profileFields', 'linkifiers', 'attachments', 'realmEmoji', 'playgrounds', 'invites', 'realmExports',
  'userTopics', 'drafts', 'savedSnippets', 'botStorage', 'botStorageSizes', 'navigationViews', 'scheduledMessages', 'pushDevices', 'searchChunks', 'searchWords',
  'pushTokens', 'notificationOutbox', 'serviceOutbox', 'pushShown', 'emailBatches', 'historicalHolders',
];
/** Server-wide tables keyed by a user, a channel or a message of the realm first. */
const userKeyed = ['userMessageRows', 'userFlagOps', 'senderMessages'];
const channelKeyed = ['channelMessages', 'topicMessages'];
const messageKeyed = ['messages', 'headers'];

export type Row = Change & { 2: Uint8Array };

/** Every row of the realm, table by table in key order, each value in the change encoding. */
export function* realmRows(store: Store, realmId: number, transaction?: Transaction): Generator<Row> {
  const table = (name: string) => store.tables.get(name)!;
  const within = transaction ? { transaction } : {};
  const entries = (name: string, start: Key, end: Key) => table(name).getRange({ start, end, ...within });
  function* range(name: string, start: Key, end: Key): Generator<Row> {
    for (const { key, value } of entries(name, start, end)) yield [name, key, changeCodec.pack(value)];
  }
  const realm = table('realms').get(realmId, within);
  if (realm !== undefined) yield ['realms', realmId, changeCodec.pack(realm)];
  for (const name of realmKeyed) yield* range(name, [realmId], [realmId + 1]);
  const idsOf = (name: string) => [...entries(name, [realmId], [realmId + 1])].map(({ value }) => (value as { id: number }).id);
  const userIds = idsOf('users');
  const channelIds = idsOf('channels');
  for (const name of userKeyed) for (const id of userIds) yield* range(name, [id], [id + 1]);
  // Conversations' tails and logs, keyed by conversation first: those of the realm's users'
  // conversations.
  const conversations = new Set<number>();
  for (const id of userIds) {
    const recipientIds = new Set([...table('userMessageRows').getKeys({ start: [id], end: [id + 1], ...within })].map((key) => (key as [number, number, number])[1]));
    for (const recipientId of recipientIds) {
      conversations.add(recipientId);
      const tail = table('userMessageTails').get([recipientId, id], within);
      if (tail !== undefined) yield ['userMessageTails', [recipientId, id], changeCodec.pack(tail)];
    }
  }
  for (const recipientId of [...conversations].sort((a, b) => a - b)) yield* range('userMessageLog', [recipientId], [recipientId + 1]);
  for (const name of channelKeyed) for (const id of channelIds) yield* range(name, [id], [id + 1]);
  const messageIds = userIds.flatMap((id) => [...entries('senderMessages', [id], [id + 1])].map(({ key }) => (key as [number, number])[1])).sort((a, b) => a - b);
  for (const name of messageKeyed) {
    for (const id of messageIds) {
      const value = table(name).get(id, within);
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
