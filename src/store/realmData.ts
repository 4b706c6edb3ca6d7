// A realm's rows across the store: the tables keyed by realm, and the rows of its users, channels
// and messages in the server-wide tables. What a snapshot and an export's copy hold, what a digest
// covers, and what a node drops before it rebuilds a realm. Read in one read transaction when given
// one, so the rows are those of one moment even while writes go on. Each value comes in the change
// encoding (as change sets carry it: the same value gives the same bytes in every store), or in its
// stored form (the bytes its table holds, which a store of the same release puts back as they are:
// nothing decoded and encoded again).
import { createHash } from 'node:crypto';
import type { Key, Transaction } from 'lmdb';
import { changeCodec, type Change, type ValueForm } from './changes.js';
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

/** Every row of the realm, table by table in key order, each value in `form`. */
export function* realmRows(store: Store, realmId: number, { transaction, form = 'change' }: { transaction?: Transaction; form?: ValueForm } = {}): Generator<Row> {
  const table = (name: string) => (form === 'stored' ? store.storedForm(name) : store.tables.get(name)!);
  const valueOf = form === 'stored' ? (value: unknown) => value as Uint8Array : (value: unknown) => changeCodec.pack(value);
  const within = transaction ? { transaction } : {};
  const entries = (name: string, start: Key, end: Key) => table(name).getRange({ start, end, ...within });
  const keys = (name: string, start: Key, end: Key) => table(name).getKeys({ start, end, ...within });
  const one = (name: string, key: Key): Row[] => {
    const value = table(name).get(key, within);
    return value === undefined ? [] : [[name, key, valueOf(value)]];
  };
  function* range(name: string, start: Key, end: Key): Generator<Row> {
    for (const { key, value } of entries(name, start, end)) yield [name, key, valueOf(value)];
  }
  yield* one('realms', realmId);
  for (const name of realmKeyed) yield* range(name, [realmId], [realmId + 1]);
  // Keyed [realmId, id].
  const idsOf = (name: string) => [...keys(name, [realmId], [realmId + 1])].map((key) => (key as [number, number])[1]);
  const userIds = idsOf('users');
  const channelIds = idsOf('channels');
  for (const name of userKeyed) for (const id of userIds) yield* range(name, [id], [id + 1]);
  // Conversations' tails and logs, keyed by conversation first: those of the realm's users'
  // conversations.
  const conversations = new Set<number>();
  for (const id of userIds) {
    const recipientIds = new Set([...keys('userMessageRows', [id], [id + 1])].map((key) => (key as [number, number, number])[1]));
    for (const recipientId of recipientIds) {
      conversations.add(recipientId);
      yield* one('userMessageTails', [recipientId, id]);
    }
  }
  for (const recipientId of [...conversations].sort((a, b) => a - b)) yield* range('userMessageLog', [recipientId], [recipientId + 1]);
  for (const name of channelKeyed) for (const id of channelIds) yield* range(name, [id], [id + 1]);
  const messageIds = userIds.flatMap((id) => [...keys('senderMessages', [id], [id + 1])].map((key) => (key as [number, number])[1])).sort((a, b) => a - b);
  for (const name of messageKeyed) for (const id of messageIds) yield* one(name, id);
  for (const prefix of [`dm:${realmId}:`, `dmh:${realmId}:`]) yield* range('meta', prefix, `${prefix}\uffff`);
}

/** A digest of the realm's rows: two stores with the same realm state give the same digest. */
export function realmDigest(store: Store, realmId: number): string {
  const hash = createHash('sha256');
  for (const row of realmRows(store, realmId)) hash.update(changeCodec.pack(row));
  return hash.digest('hex');
}
