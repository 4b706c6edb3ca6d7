// The LMDB environment and its named sub-databases. Values are msgpack (msgpackr); keys are
// ordered-binary arrays, so every realm's rows are one contiguous key range.
//
// Key layout (sub-database: key → value). Rows of the realm and of its users are typed tables
// (tables.ts) that build these keys; commands save through CommandContext.save, which updates
// the realm's memory in the same step.
//   meta     'ids:<kind>'                 → last ID this store handed out for <kind> (server-wide
//                                          counters; with shards, the shared counters' floor: idCounters.ts)
//            'defaultRealm'               → realm ID served when the Host header names no realm
//            'dm:<realmId>:<participant IDs, sorted, comma-separated>' → a direct-message group's
//                                          recipient ID; past KEY_TEXT_LIMIT bytes the list is
//                                          replaced by its SHA-256: 'dmh:<realmId>:<hex>'
//   realms   realmId                      → RealmRecord
//   users    [realmId, userId]            → UserRecord
//   groups   [realmId, groupId]           → GroupRecord (system groups included)
//   channels [realmId, channelId]         → ChannelRecord
//   subscriptions [realmId, channelId, userId] → SubscriptionRecord
//   messages messageId                    → MessageRecord (message IDs are server-wide and increasing),
//                                          its reactions and submessages (polls, to-do lists) inside it
//   senderMessages [senderId, messageId] → true; the messages a user sent, in order
//   messageHeaders messageId              → MessageHeader: the message's place (channel, topic or
//                                          participants), small enough to read thousands at once
//   userMessageRows [userId, recipientId, first message ID] → the user's message rows of one
//                                          conversation with their flag bits (Zulip's values), in
//                                          chunks (userMessages.ts); empty for the chunk in the tail:
//   userMessageTails [recipientId, userId] → the conversation's last chunk written, after its first
//                                          message ID
//   userMessageLog [recipientId, messageId] → a new message's rows in the conversation, not yet
//                                          written into the users' chunks (conversationLog.ts)
//   userFlagOps [userId, sequence]        → a flag set or cleared on rows of the user's, not yet
//                                          written into their chunks (flagJournal.ts)
//   channelMessages [channelId, messageId] → topic; a channel's messages in order
//   topicMessages [channelId, topic lowercased, messageId] → topic; a topic's messages in order
//   searchChunks [realmId, term, first message ID] → the IDs of the messages holding the term, in
//                                          chunks (postingLists.ts); searchWords [realmId, term] →
//                                          true: the full-text index (searchIndex.ts); terms are at
//                                          most 60 characters
//
// LMDB refuses keys over 1,978 bytes. Text from users reaches keys only bounded: topics are at most
// 60 characters when stored, and a lookup with longer text than any stored key finds nothing.
//   folders  [realmId, folderId]          → FolderRecord (channel folders)
//   profileFields [realmId, fieldId]     → FieldRecord (custom profile field definitions)
//   userTopics [realmId, userId, channelId, topic lowercased] → UserTopicRecord (policy not inherit)
//   drafts   [realmId, userId, draftId]  → DraftRecord
//   savedSnippets [realmId, userId, savedSnippetId] → SavedSnippetRecord
//   botStorage [realmId, botId, 0, key] → BotStorageEntry (a bot's stored key and value); a key past
//                                          KEY_TEXT_LIMIT bytes is [realmId, botId, 1, its SHA-256]
//   botStorageSizes [realmId, botId]     → BotStorageSize: the characters of the bot's keys and
//                                          values, so that a write checks the limit without reading
//                                          them all
//   navigationViews [realmId, userId, navigationViewId] → NavigationViewRecord (found by fragment,
//                                          which is user text of any length, so never a key)
//   scheduledMessages [realmId, senderId, scheduledMessageId] → ScheduledMessageRecord (not yet sent)
//   pushDevices [realmId, userId, pushAccountId] → PushDeviceRecord
//   pushTokens [realmId, userId, kind, SHA-256 of the token] → PushTokenRecord (the older token
//                                          registrations)
//   notificationOutbox [realmId, notificationId] → OutboxRecord (push notifications not yet
//                                          acknowledged by the relay)
//   serviceOutbox [realmId, deliveryId] → ServiceDeliveryRecord (messages for outgoing-webhook bots'
//                                          services, not yet settled; IDs from the notification
//                                          counter)
//   pushShown [realmId, userId, messageId, route] → ShownRecord (notified, not yet read)
//   historicalHolders [realmId, recipientId, userId] → true: the user holds rows in a channel's
//                                          conversation without ever having been subscribed (flags
//                                          set on messages read through its public history)
//   emailBatches [realmId, userId]       → EmailBatchRecord (missed messages to e-mail at dueAt)
//   linkifiers [realmId, linkifierId]     → LinkifierRecord
//   attachments [realmId, attachmentId]   → AttachmentRecord (uploaded files; the bytes are in the
//                                          file storage, src/files/, under the path ID)
//   realmEmoji [realmId, emojiId]         → RealmEmojiRecord (custom emoji; the image is in the file
//                                          storage under its image key)
//   playgrounds [realmId, playgroundId]   → PlaygroundRecord (code playgrounds)
//   invites  [realmId, inviteId]          → InviteRecord (reusable invitation links)
//   realmExports [realmId, exportId]      → RealmExportRecord (data exports over the API; the
//                                          tarball is in the file storage)
//   queues   queueId                      → persisted event queue (written at graceful shutdown)
//   presence realmId                      → PresenceSnapshot, the realm's presence table (kept in
//                                          memory, saved every few minutes and at shutdown)
import { statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { asBinary, open, type Database, type Key, type RootDatabase } from 'lmdb';
import type { ChannelRecord, FolderRecord, SubscriptionRecord } from '../channels/records.js';
import type { GroupRecord } from '../groups/records.js';
import type { AttachmentRecord } from '../messages/attachments.js';
import type { RealmEmojiRecord } from '../emoji/custom.js';
import type { LinkifierRecord } from '../messages/linkifiers.js';
import type { PlaygroundRecord } from '../messages/playgrounds.js';
import type { InviteRecord } from '../users/invites.js';
import { contentHas, headerOf, type DraftRecord, type MessageHeader, type MessageRecord, type ScheduledMessageRecord, type UserTopicRecord } from '../messages/records.js';
import type { SavedSnippetRecord } from '../messages/savedSnippets.js';
import type { BotStorageEntry, BotStorageSize } from '../users/botStorage.js';
import { tokenKey, type OutboxRecord, type PushDeviceRecord, type PushTokenRecord, type ShownRecord } from '../push/records.js';
import type { EmailBatchRecord } from '../messages/notifications.js';
import type { ServiceDeliveryRecord } from '../integrations/outgoing.js';
import type { RealmExportRecord } from '../organization/exports.js';
import type { RealmRecord } from '../organization/records.js';
import type { PresenceSnapshot } from '../users/presence.js';
import type { FieldRecord } from '../users/profileFields.js';
import type { NavigationViewRecord } from '../users/navigationViews.js';
import type { UserRecord } from '../users/records.js';
import { changeCodec, decodeValue, FOLD_LOG, recordedAsMarker, tapWrites, type Change, type ChangeTap, type ValueForm } from './changes.js';
import { SearchIndex } from './searchIndex.js';
import { PostingLists } from './postingLists.js';
import { BoundedCache } from './boundedCache.js';
import { hasKeys, OwnedTable, RealmTable } from './tables.js';
import { RowChanges, UserMessageIndex } from './userMessages.js';
import { ChannelTopics } from './channelTopics.js';
import type { IdKind, SharedIdCounters } from './idCounters.js';

/** Where IDs come from instead of the store's own counters (a cluster's blocks of IDs). */
export interface IdSource {
  next(kind: IdKind): number;
  /** Throws (`IdsExhausted`) unless `count` IDs of the kind are at hand for the write under way. */
  ensure(kind: IdKind, count: number): void;
}

/** How far a node's copy of a realm follows the realm's log in a cluster: the sequence of the last
 * message it holds, and whether the copy holds nothing else (false while the node owns the realm:
 * after a crash the copy may hold writes the log never took, so it is rebuilt). */
export interface LogPosition {
  seq: number;
  clean: boolean;
}

/** What a graceful shutdown keeps for the next start (event queues), by ID, as it was given. */
export interface Shelved {
  id: string;
}

/** The storage could not make a write durable; nothing of the write was kept. */
export class StorageError extends Error {
  /** What the system said, for the operator's log and the client's message. */
  readonly reason: string;

  constructor(readonly cause: unknown) {
    const reason = cause instanceof Error ? cause.message.split(':')[0]! : String(cause);
    super(`storage write failed: ${reason}`);
    this.reason = reason;
  }
}

/** lmdb-js rejects a failed batch with "Commit failed" and the system's error in a promise of its
 * own (`commitError`); that promise is awaited here, so it never becomes an unhandled rejection. */
async function rootCause(error: unknown): Promise<unknown> {
  const pending = (error as { commitError?: unknown } | null)?.commitError;
  return pending instanceof Promise ? pending.then(() => error, (cause: unknown) => cause) : error;
}

/** Errors of the storage itself rather than of the command: the batch's commit failed, or LMDB
 * refused a page (ENOSPC 28, EIO 5, EFBIG 27, EDQUOT 122, MDB_MAP_FULL -30792). */
function isStorageFailure(error: unknown): boolean {
  if (error instanceof StorageError) return true;
  if ((error as { commitError?: unknown } | null)?.commitError !== undefined) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 28 || code === 5 || code === 27 || code === 122 || code === -30792 || code === 'MDB_MAP_FULL';
}

/** How a write runs in its batch. */
export interface WriteOptions {
  /** The write makes every check before its first change, so it throws only before changing
   * anything unless something is wrong (a bug, the storage failing). It then runs in the batch's
   * transaction itself, without the child transaction of its own that lets every other write be
   * rolled back alone: LMDB makes a child by copying into it each page the batch had already
   * changed that the child changes, about a tenth of a message's instructions on the send path.
   * Should such a write throw after changing something, its changes cannot be told apart from the
   * batch's: the batch is rolled back whole, the write refused with its error and every other
   * write of the batch with a `RolledBackWithBatch`. Such a write takes the IDs it may need
   * (`ensureIds`) before its first change: a cluster's blocks of IDs can run out. */
  checksFirst?: boolean;
  /** Told at once, inside the batch, when the write's changes are rolled back (its own failure,
   * or its batch's inside the batch's transaction), before a later write runs: whoever keeps
   * memory in step with the write knows it no longer is before running another write against it.
   * A batch whose commit fails (the disk) is told only with its writes' refusals. */
  onRollBack?: () => void;
}

/** Where a recorded write (`Store.recordedWrite`) takes its IDs, and who is told its change set
 * (and, as every write's, its rollback). */
export interface RecordedWriteOptions<T> extends WriteOptions {
  /** Where its IDs come from instead of the store's counters (a cluster's blocks of IDs). */
  ids?: IdSource;
  /** Told its change set and result once every write of its batch has run. */
  recorded?: (changes: readonly Change[], result: T) => void;
}

/** A write that was rolled back with its batch, which another write (`WriteOptions.checksFirst`)
 * failed after changing: nothing of it was kept, and it may be tried again. */
export class RolledBackWithBatch extends Error {}

/** Thrown out of a batch's transaction to roll it back whole: `write` failed after changing it. */
class BatchSpoiled extends Error {
  constructor(
    readonly write: PendingWrite,
    readonly error: unknown,
  ) {
    super('a write of the batch failed after changing it');
  }
}

/** A write waiting for its transaction, then what came of it. */
interface PendingWrite {
  run: () => unknown;
  /** Runs in a child transaction of its own, rolled back alone if it throws (else `checksFirst`). */
  guarded: boolean;
  onRollBack: (() => void) | undefined;
  /** Set when its puts and removes are recorded (into `changes`): told them and the write's
   * result once the write has run in its batch. */
  recorded: ((changes: readonly Change[], result: unknown) => void) | undefined;
  changes: Change[];
  outcome?: { ok: true; result: unknown } | { ok: false; error: unknown };
  resolve(value: { result: unknown; changes: Change[] }): void;
  reject(error: unknown): void;
}

/** How many message headers stay in memory (~100 bytes each). */
const HEADER_CACHE_SIZE = 250_000;

/** The most bytes of user text a key holds (topics: 60 characters, at most 240 bytes). */
const KEY_TEXT_LIMIT = 1024;
const tooLongForKey = (text: string): boolean => text.length > KEY_TEXT_LIMIT || Buffer.byteLength(text) > KEY_TEXT_LIMIT;

/** Where a bot's storage keeps a key (see the layout above): its text, or the text's SHA-256 when
 * it is too long for LMDB; the first part keeps the two forms apart. */
export const botStorageId = (key: string): [0 | 1, string] => (tooLongForKey(key) ? [1, createHash('sha256').update(key).digest('hex')] : [0, key]);

/** The key range of the rows under a key prefix, from `from` (inclusive) on, or back when reverse. */
function span(prefix: (number | string)[], from: number, reverse: boolean) {
  return reverse ? { start: [...prefix, from], end: [...prefix, -1], reverse: true } : { start: [...prefix, from], end: [...prefix, Number.MAX_SAFE_INTEGER] };
}

/** The data layout this version writes. Format 1 is every layout from before the format was
 * recorded (brought up to date by the migrations below); a data directory records its format.
 * Format 4 keeps conversations' last chunks in userMessageTails; format 3's chunks are read as they
 * are (a chunk moves to the tail when next written), but a version before it would not read them.
 * Format 5 keeps flag updates in userFlagOps until they are folded into the chunks; a version
 * before it would not apply them. Format 6 keeps new messages' rows in userMessageLog until they
 * are folded into the chunks; a version before it would not read them. Format 7 keeps the
 * full-text index's postings in chunks (searchChunks) instead of a row each (searchPostings).
 * Format 8 records in each message what its rendering holds (MessageRecord.has) for the has:
 * narrows; older messages are given theirs at open. Format 9 writes the conversation logs' records
 * compactly (conversationLog.ts); format 8's are read as they are, but a version before it would
 * not read them. Format 10 changes no row: a data directory may have shards from then on (shards.ts),
 * and a version before it, which would open shard 0 alone and hand out IDs the other shards hold,
 * refuses it. */
export const STORE_FORMAT = 10;
/** The first format whose messages record what their rendering holds. */
const HAS_BITS_FORMAT = 8;
/** The first format with the full-text index in its layout of today: older directories are
 * indexed at open. */
const SEARCH_INDEX_FORMAT = 7;
/** Where formats 3 to 6 kept the full-text index's postings, a row each: [realmId, term, messageId]. */
const FORMAT_6_POSTINGS = 'searchPostings';
/** Messages indexed per transaction when the search index is built. */
const INDEX_BATCH = 10_000;

/** Told how far building the search index has come. */
export type IndexProgress = (indexed: number, total: number) => void;
const FORMAT_KEY = 'storeFormat';
/** Set once rows given from channels' history before their holders were recorded have been traced. */
const HOLDERS_TRACED_KEY = 'historicalHoldersTraced';

/** A data directory written by a newer Parley: this version does not open it. */
export class StoreFormatError extends Error {}

export class Store {
  readonly env: RootDatabase;
  readonly meta: Database<number, string>;
  readonly realms: Database<RealmRecord, number>;
  readonly users: RealmTable<UserRecord>;
  readonly groups: RealmTable<GroupRecord>;
  readonly channels: RealmTable<ChannelRecord>;
  readonly subscriptions: RealmTable<SubscriptionRecord>;
  readonly messages: Database<MessageRecord, number>;
  private readonly messageHeaders: Database<MessageHeader, number>;
  private readonly senderMessages: Database<true, [number, number]>;
  readonly userMessages: UserMessageIndex;
  readonly channelMessages: Database<string, [number, number]>;
  readonly topicMessages: Database<string, [number, string, number]>;
  /** Channels' messages with their topics, in memory (read from channelMessages). */
  readonly channelTopics: ChannelTopics;
  private readonly postings: PostingLists;
  readonly search: SearchIndex;
  readonly folders: RealmTable<FolderRecord>;
  readonly profileFields: RealmTable<FieldRecord>;
  readonly linkifiers: RealmTable<LinkifierRecord>;
  readonly attachments: RealmTable<AttachmentRecord>;
  readonly realmEmoji: RealmTable<RealmEmojiRecord>;
  readonly playgrounds: RealmTable<PlaygroundRecord>;
  readonly invites: RealmTable<InviteRecord>;
  readonly realmExports: RealmTable<RealmExportRecord>;
  readonly userTopics: OwnedTable<UserTopicRecord>;
  readonly drafts: OwnedTable<DraftRecord>;
  readonly savedSnippets: OwnedTable<SavedSnippetRecord>;
  readonly botStorage: OwnedTable<BotStorageEntry>;
  readonly botStorageSizes: OwnedTable<BotStorageSize>;
  readonly navigationViews: OwnedTable<NavigationViewRecord>;
  readonly scheduledMessages: OwnedTable<ScheduledMessageRecord>;
  readonly pushDevices: OwnedTable<PushDeviceRecord>;
  readonly pushTokens: OwnedTable<PushTokenRecord>;
  readonly notificationOutbox: RealmTable<OutboxRecord>;
  readonly serviceOutbox: RealmTable<ServiceDeliveryRecord>;
  readonly pushShown: OwnedTable<ShownRecord>;
  private readonly historicalHolders: Database<true, [realmId: number, recipientId: number, userId: number]>;
  readonly emailBatches: RealmTable<EmailBatchRecord>;
  private readonly queues: Database<Shelved, string>;
  private readonly presence: Database<PresenceSnapshot, number>;
  private readonly logPositions: Database<LogPosition, number>;
  private readonly lastIds = new Map<IdKind, number>();
  /** The counters this store shares with the process's other shards, when it has them: it records
   * the IDs it takes from them. */
  private readonly counters: SharedIdCounters | undefined;
  /** Where the write under way takes its IDs from, when not from the store's counters. */
  private ids: IdSource | undefined;
  /** Headers of recently sent or read messages (flag updates read thousands at once). */
  private readonly headerCache = new BoundedCache<number, MessageHeader>(HEADER_CACHE_SIZE);

  /** The sub-databases that hold realms' data, by name (not the server's own: queues, presence). */
  readonly tables = new Map<string, Database<unknown, Key>>();
  /** The same sub-databases read as bytes (their values' stored form), by name. The tables have no
   * shared structures and no compression, so their bytes mean the same in every store. */
  private readonly storedForms = new Map<string, Database<Uint8Array, Key>>();
  /** Where the changes of the write under way are recorded, while a recorder listens. */
  private readonly tap: ChangeTap = { current: undefined, count: 0 };

  /** The format the data directory was migrated from at open (null: it was current, or new). */
  readonly migratedFrom: number | null = null;

  /** The bytes the data file takes on disk. */
  fileBytes(): number {
    return statSync(this.path).size;
  }

  constructor(
    readonly path: string,
    { progress, sync = true, counters }: { progress?: IndexProgress; sync?: boolean; counters?: SharedIdCounters } = {},
  ) {
    this.counters = counters;
    // overlappingSync flushes outside the write lock; without separateFlushed a write's promise
    // resolves only once its commit is flushed to disk, which is when a reply may be sent.
    // Without sync (PARLEY_STORE_SYNC=false, the tests) a commit is in the OS's page cache, which
    // outlives the process but not the machine. lmdb takes noSync only without overlappingSync.
    // maxDbs: one named database per kind of row (the key layout above), with room to grow.
    this.env = open({ path, overlappingSync: sync, separateFlushed: false, noSync: !sync, maxDbs: 64 });
    this.meta = this.open('meta');
    const recorded = this.meta.get(FORMAT_KEY);
    if (recorded !== undefined && recorded > STORE_FORMAT) {
      void this.env.close();
      throw new StoreFormatError(`${path} is in data format ${recorded}, written by a newer Parley; this version reads formats up to ${STORE_FORMAT}: run the newer version, or restore a backup made by this one`);
    }
    this.realms = this.open('realms');
    this.users = new RealmTable(this.open('users'), (user) => [user.id]);
    this.groups = new RealmTable(this.open('groups'), (group) => [group.id]);
    this.channels = new RealmTable(this.open('channels'), (channel) => [channel.id]);
    this.subscriptions = new RealmTable(this.open('subscriptions'), (subscription) => [subscription.channelId, subscription.userId]);
    this.messages = this.open('messages');
    this.messageHeaders = this.open('headers');
    this.senderMessages = this.open('senderMessages');
    this.backfill(this.senderMessages, this.messages, () => {
      for (const { value } of this.messages.getRange()) this.senderMessages.put([value.senderId, value.id], true);
    });
    this.userMessages = new UserMessageIndex(
      this.open('userMessageRows', { encoding: 'binary' }),
      this.open('userMessageTails', { encoding: 'binary' }),
      this.open('userFlagOps', { encoding: 'binary' }),
      this.open('userMessageLog', { encoding: 'binary' }),
      (recipientId, fold) => recordedAsMarker(this.tap, [FOLD_LOG, recipientId], fold),
    );
    this.migrateUserMessageRows();
    this.channelMessages = this.open('channelMessages');
    this.topicMessages = this.open('topicMessages');
    this.channelTopics = new ChannelTopics(this.channelMessages);
    this.backfill(this.topicMessages, this.channelMessages, () => {
      for (const { key, value } of this.channelMessages.getRange()) this.topicMessages.put([key[0], value.toLowerCase(), key[1]], value);
    });
    this.postings = new PostingLists(this.open('searchChunks', { encoding: 'binary', derived: true }));
    this.search = new SearchIndex(this.postings, this.open('searchWords'));
    this.folders = new RealmTable(this.open('folders'), (folder) => [folder.id]);
    this.profileFields = new RealmTable(this.open('profileFields'), (field) => [field.id]);
    this.linkifiers = new RealmTable(this.open('linkifiers'), (linkifier) => [linkifier.id]);
    this.attachments = new RealmTable(this.open('attachments'), (attachment) => [attachment.id]);
    this.realmEmoji = new RealmTable(this.open('realmEmoji'), (emoji) => [emoji.id]);
    this.playgrounds = new RealmTable(this.open('playgrounds'), (playground) => [playground.id]);
    this.invites = new RealmTable(this.open('invites'), (invite) => [invite.id]);
    this.realmExports = new RealmTable(this.open('realmExports'), (record) => [record.id]);
    this.userTopics = new OwnedTable(this.open('userTopics'), (row) => [row.channelId, row.topic.toLowerCase()]);
    this.drafts = new OwnedTable(this.open('drafts'), (draft) => [draft.id]);
    this.savedSnippets = new OwnedTable(this.open('savedSnippets'), (snippet) => [snippet.id]);
    this.botStorage = new OwnedTable(this.open('botStorage'), (entry) => botStorageId(entry.key));
    this.botStorageSizes = new OwnedTable(this.open('botStorageSizes'), () => []);
    this.navigationViews = new OwnedTable(this.open('navigationViews'), (view) => [view.id]);
    this.scheduledMessages = new OwnedTable(this.open('scheduledMessages'), (message) => [message.id]);
    this.pushDevices = new OwnedTable(this.open('pushDevices'), (device) => [device.pushAccountId]);
    this.pushTokens = new OwnedTable(this.open('pushTokens'), (token) => [token.kind, tokenKey(token.token)]);
    this.notificationOutbox = new RealmTable(this.open('notificationOutbox'), (notification) => [notification.id]);
    this.serviceOutbox = new RealmTable(this.open('serviceOutbox'), (delivery) => [delivery.id]);
    this.pushShown = new OwnedTable(this.open('pushShown'), (shown) => [shown.messageId, shown.route]);
    this.historicalHolders = this.open('historicalHolders');
    this.emailBatches = new RealmTable(this.open('emailBatches'), (batch) => [batch.userId]);
    this.queues = this.env.openDB({ name: 'queues' });
    this.presence = this.env.openDB({ name: 'presence' });
    this.logPositions = this.env.openDB({ name: 'logPositions' });
    if (recorded !== STORE_FORMAT) {
      // A new data directory has no realm yet; one without a recorded format was migrated above.
      if (recorded !== undefined || hasKeys(this.realms)) this.migratedFrom = recorded ?? 1;
      if (this.migratedFrom !== null && this.migratedFrom < SEARCH_INDEX_FORMAT) {
        this.rebuildSearchIndex(progress);
        this.env.openDB({ name: FORMAT_6_POSTINGS }).dropSync();
      }
      if (this.migratedFrom !== null && this.migratedFrom < HAS_BITS_FORMAT) this.recordHasBits();
      this.meta.putSync(FORMAT_KEY, STORE_FORMAT);
    }
    this.traceHistoricalRows();
  }

  /** Rows a user was given from a channel's history (flags set without a subscription) before such
   * holders were recorded in historicalHolders, which deletion and moves visit: found once, in one
   * transaction, and recorded; those whose message is gone, or now in another conversation, are
   * dropped (deletion and moves had left them behind). Each cluster node traces its own copy at
   * open; the repair is not in the realms' logs. */
  private traceHistoricalRows(): void {
    if (this.meta.get(HOLDERS_TRACED_KEY) !== undefined) return;
    this.env.transactionSync(() => {
      for (const realmId of this.realms.getKeys()) {
        const channelOf = new Map<number, number>([...this.channels.ofRealm(realmId)].map((channel) => [channel.recipientId, channel.id]));
        const everSubscribed = new Set([...this.subscriptions.ofRealm(realmId)].map((subscription) => `${subscription.channelId}:${subscription.userId}`));
        for (const user of this.users.ofRealm(realmId)) {
          for (const recipientId of this.userMessages.conversations(user.id)) {
            const channelId = channelOf.get(recipientId);
            if (channelId === undefined || everSubscribed.has(`${channelId}:${user.id}`)) continue;
            this.addHistoricalHolder(realmId, recipientId, user.id);
            const stale = new RowChanges();
            for (const [id] of this.userMessages.conversationRange(user.id, recipientId, 0)) if (this.messageHeader(id)?.recipientId !== recipientId) stale.add(id, undefined);
            if (stale.length > 0) this.userMessages.apply(user.id, recipientId, stale);
          }
        }
      }
      this.meta.put(HOLDERS_TRACED_KEY, 1);
    });
  }

  /** Builds the full-text index anew from every message, a batch per transaction, telling
   * `progress` after each; returns how many messages it indexed. Not for a running server: the
   * index is empty until it is done. */
  /** Gives each message written before format 8 what its rendering holds, a batch per transaction. */
  private recordHasBits(): void {
    for (let after = 0; ; ) {
      const batch = [...this.messages.getRange({ start: after + 1, limit: INDEX_BATCH })].map(({ value }) => value);
      if (batch.length === 0) return;
      this.env.transactionSync(() => {
        for (const message of batch) {
          const has = contentHas(message.renderedContent);
          if (has !== 0) this.messages.put(message.id, { ...message, has });
        }
      });
      after = batch.at(-1)!.id;
    }
  }

  rebuildSearchIndex(progress?: IndexProgress): number {
    this.search.clear();
    const total = this.messages.getKeysCount();
    let indexed = 0;
    for (let after = 0; ; ) {
      const batch = [...this.messages.getRange({ start: after + 1, limit: INDEX_BATCH })].map(({ value }) => value);
      if (batch.length === 0) break;
      this.env.transactionSync(() => {
        // A term's postings of the whole batch at once.
        this.search.inBatch(() => {
          for (const message of batch) this.search.add(message);
        });
      });
      indexed += batch.length;
      after = batch.at(-1)!.id;
      progress?.(indexed, total);
    }
    return indexed;
  }

  /** The data format recorded in the data directory. */
  get format(): number {
    return this.meta.get(FORMAT_KEY) ?? 1;
  }

  /** Opens a sub-database of realm data, recorded while a write is (see `write`) unless it is
   * `derived`: rows that whoever applies a change set makes from its other rows (`applyChanges`
   * with `reindex`), so change sets and logs do not carry them. */
  private open<V, K extends Key>(name: string, { derived = false, ...options }: { encoding?: 'binary'; derived?: boolean } = {}): Database<V, K> {
    const db = tapWrites(this.env.openDB<V, K>({ name, ...options }), name, this.tap, { recorded: !derived });
    this.tables.set(name, db as Database<unknown, Key>);
    this.storedForms.set(name, options.encoding === 'binary' ? (db as Database<Uint8Array, Key>) : this.env.openDB({ name, encoding: 'binary' }));
    return db;
  }

  /** A table of realm data read as bytes: each value as the table stores it. */
  storedForm(name: string): Database<Uint8Array, Key> {
    const db = this.storedForms.get(name);
    if (!db) throw new Error(`no table '${name}'`);
    return db;
  }


  /** Data directories written before the chunked layout kept one row per user and message in
   * 'userMessages'; they are folded into conversation chunks once, in one transaction, at open. */
  private migrateUserMessageRows(): void {
    const old: Database<number, [number, number]> = this.env.openDB({ name: 'userMessages' });
    if (!hasKeys(old)) return;
    this.env.transactionSync(() => {
      const recipients = new Map<number, number>();
      for (const { value } of this.messages.getRange()) recipients.set(value.id, value.recipientId);
      // userId → recipientId → rows, one user at a time (rows come ordered by user).
      let userId = -1;
      let byConversation = new Map<number, RowChanges>();
      const flush = () => {
        for (const [recipientId, rows] of byConversation) this.userMessages.apply(userId, recipientId, rows);
      };
      for (const { key, value } of old.getRange()) {
        if (key[0] !== userId) {
          flush();
          userId = key[0];
          byConversation = new Map();
        }
        const recipientId = recipients.get(key[1]);
        if (recipientId === undefined) continue;
        const rows = byConversation.get(recipientId) ?? new RowChanges();
        byConversation.set(recipientId, rows);
        rows.add(key[1], value);
      }
      flush();
      old.clearSync();
    });
  }

  /** Records that a user holds rows in a channel's conversation without being (or having been) a
   * subscriber: deleting or moving its messages must find their rows too. Call inside a write. */
  addHistoricalHolder(realmId: number, recipientId: number, userId: number): void {
    if (this.historicalHolders.get([realmId, recipientId, userId]) === undefined) this.historicalHolders.put([realmId, recipientId, userId], true);
  }

  /** The users recorded by addHistoricalHolder for a conversation. */
  historicalHoldersOf(realmId: number, recipientId: number): number[] {
    return [...this.historicalHolders.getKeys({ start: [realmId, recipientId], end: [realmId, recipientId + 1] })].map((key) => key[2]);
  }

  /** Adds a channel message to the channel's and its topic's indexes; call inside a write. */
  indexInChannel(channelId: number, messageId: number, topic: string): void {
    this.channelMessages.put([channelId, messageId], topic);
    this.topicMessages.put([channelId, topic.toLowerCase(), messageId], topic);
    this.channelTopics.added(channelId, messageId, topic);
  }

  /** Takes a channel message out of the channel's and its topic's indexes; call inside a write. */
  unindexInChannel(channelId: number, messageId: number, topic: string): void {
    this.channelMessages.remove([channelId, messageId]);
    this.topicMessages.remove([channelId, topic.toLowerCase(), messageId]);
    this.channelTopics.removed(channelId);
  }

  /** A channel's messages from `from` (inclusive) on, or back when reverse: [message ID, topic]. */
  *channelRange(channelId: number, from: number, reverse = false): Generator<[messageId: number, topic: string]> {
    for (const { key, value } of this.channelMessages.getRange(span([channelId], from, reverse))) yield [key[1], value];
  }

  /** A topic's messages (its name lowercased) from `from` (inclusive) on, or back when reverse:
   * [message ID, topic as written]. */
  *topicRange(channelId: number, topic: string, from: number, reverse = false): Generator<[messageId: number, topic: string]> {
    if (tooLongForKey(topic)) return;
    for (const { key, value } of this.topicMessages.getRange(span([channelId, topic], from, reverse))) yield [key[2], value];
  }

  /** Whether any message is left in a topic (its name lowercased). */
  topicHasMessages(channelId: number, topic: string): boolean {
    if (tooLongForKey(topic)) return false;
    return hasKeys(this.topicMessages, span([channelId, topic], 0, false));
  }

  /** The IDs of the messages a user sent, oldest first. */
  *sentBy(senderId: number): Generator<number> {
    for (const key of this.senderMessages.getKeys(span([senderId], 0, false))) yield key[1];
  }

  /** Builds an index added after data directories existed, once, at open: when it is empty and
   * the rows it indexes are not. */
  private backfill(index: Database, source: Database, fill: () => void): void {
    if (hasKeys(index) || !hasKeys(source)) return;
    this.env.transactionSync(fill);
  }

  /** Stores a message with its header and its words in the search index; call inside a write.
   * `before` is the stored record a change replaces (the index then writes only the words that
   * changed); without it the message is new (no read on the send path). `contentTerms`: the
   * message's content's words as the index holds them, when found already (search.ts's contentTerms). */
  saveMessage(message: MessageRecord, before?: MessageRecord, contentTerms?: readonly string[]): void {
    const header = headerOf(message);
    this.reindex(before, message, contentTerms);
    this.messages.put(message.id, message);
    this.messageHeaders.put(message.id, header);
    this.senderMessages.put([message.senderId, message.id], true);
    this.headerCache.set(message.id, header);
  }

  /** Brings the search index from a message's stored record to its next one (none: it is new, or
   * removed; `contentTerms`: the next one's content's words, when found already); call inside a write. */
  private reindex(before: MessageRecord | undefined, after: MessageRecord | undefined, contentTerms?: readonly string[]): void {
    if (before && after) this.search.update(before, after, contentTerms);
    else if (after) this.search.add(after, contentTerms);
    else if (before) this.search.remove(before);
  }

  /** Removes a message, its header and its places in the sender and search indexes; call inside a
   * write. */
  removeMessage(message: MessageRecord): void {
    this.reindex(message, undefined);
    this.senderMessages.remove([message.senderId, message.id]);
    this.messages.remove(message.id);
    this.messageHeaders.remove(message.id);
    this.headerCache.delete(message.id);
  }

  /** A message's header (from the message itself for messages stored before headers were). */
  messageHeader(id: number): MessageHeader | undefined {
    const cached = this.headerCache.get(id);
    if (cached) return cached;
    const stored = this.messageHeaders.get(id);
    const message = stored ? undefined : this.messages.get(id);
    const header = stored ?? (message && headerOf(message));
    if (header) this.headerCache.set(id, header);
    return header;
  }

  /** Why the last write batch could not be saved, until a later one is (GET /ready reports it). */
  storageFailure: string | null = null;

  /** Writes waiting for the next transaction. */
  private pending: PendingWrite[] = [];

  /** Runs `fn` in the next write transaction (group commit), as a child transaction of its own
   * unless it `checksFirst`: everything it wrote is rolled back if it throws. Resolves with its
   * result once the transaction is durable on disk; rejects with a StorageError when it could not
   * be (disk full, map full, I/O error). */
  write<T>(fn: () => T, { checksFirst = false, onRollBack }: WriteOptions = {}): Promise<T> {
    return this.commit<T>({ run: fn, recorded: undefined, guarded: !checksFirst, onRollBack }).then(({ result }) => result);
  }

  /** As `write`, and hands back every put and remove the write made (its change set), also to
   * `recorded` with the write's result as soon as every write of its batch has run (before the
   * batch commits; never for a write that failed, nor for one of a batch rolled back whole); IDs
   * come from `ids` when given. */
  recordedWrite<T>(fn: () => T, { ids, recorded, checksFirst = false, onRollBack }: RecordedWriteOptions<T> = {}): Promise<{ result: T; changes: Change[] }> {
    const run = () => {
      this.ids = ids;
      try {
        return fn();
      } finally {
        this.ids = undefined;
      }
    };
    return this.commit<T>({ run, recorded: (changes, result) => recorded?.(changes, result as T), guarded: !checksFirst, onRollBack });
  }

  /** Makes a change set recorded elsewhere to this store, in one write. A recorded write's change
   * set (`recordedWrite`: a realm log's) leaves out what the search index derives from the
   * messages: the postings, and the new words of its new messages (put with their postings after
   * the batch's writes, as standalone, outside every change set): with `reindex` the messages it
   * puts or removes are indexed here, as the writer indexed them (a term's chunks depend only on
   * the IDs it holds, so both hold the same rows). Rows copied whole (a snapshot, an export, a
   * realm's copy dropped) carry them already. A conversation log's fold stands in a change set as
   * a marker (changes.ts), and is made again here, from the tables as the changes before it left
   * them. Values in their stored form (change sets and rows of this release) are put as they are;
   * in the change encoding (`form: 'change'`: written before), decoded and encoded again. */
  async applyChanges(changes: readonly Change[], { reindex = false, form = 'stored' }: { reindex?: boolean; form?: ValueForm } = {}): Promise<void> {
    await this.write(() => {
      for (const [name, key, value] of changes) {
        if (name === FOLD_LOG) {
          this.userMessages.foldLogOf(key as number);
          continue;
        }
        if (name === FORMAT_6_POSTINGS) {
          // A snapshot or log written before format 7.
          const [realmId, term, messageId] = key as [number, string, number];
          if (value === undefined) this.postings.remove(realmId, term, [messageId]);
          else this.postings.add(realmId, term, [messageId]);
          continue;
        }
        const db = this.tables.get(name);
        if (!db) throw new Error(`a change to an unknown table '${name}'`);
        if (reindex && db === this.messages) this.reindex(this.messages.get(key as number), value && (decodeValue(this.messages, value, form) as MessageRecord));
        if (value === undefined) db.remove(key);
        else db.put(key, form === 'stored' ? asBinary(value) : changeCodec.unpack(value));
      }
      this.forgetCaches();
    });
    this.forgetCaches();
  }

  /** Drops what memory holds of rows another writer changed, or (`rolledBack`) of rows a write
   * that was rolled back loaded or changed: of the row tables, only those. */
  private forgetCaches(rolledBack = false): void {
    this.headerCache.clear();
    this.userMessages.forget(rolledBack);
    this.search.forget();
    this.channelTopics.forget(rolledBack);
    this.lastIds.clear();
  }

  /** Group commit: a write joins the transaction LMDB starts next. While one transaction runs and
   * commits, the writes that arrive wait together for the next, which runs them all, each in a
   * child transaction (but those that check first), then writes their messages' search postings
   * (outside the child transactions, which would each copy the postings' pages). With `overlappingSync` the next
   * transaction starts once the one before is committed, while it is still being flushed (below
   * saturation about two messages share a commit; waiting for the flush was measured: CHANGELOG,
   * `send`). Each write is answered once its transaction is durable. */
  private commit<T>(write: Pick<PendingWrite, 'run' | 'recorded' | 'guarded' | 'onRollBack'>): Promise<{ result: T; changes: Change[] }> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...write, changes: [], resolve: resolve as PendingWrite['resolve'], reject });
      if (this.pending.length === 1) this.startBatch();
    });
  }

  private startBatch(): void {
    let batch: PendingWrite[] = [];
    let queued: Promise<void>;
    try {
      queued = this.env.childTransaction(() => {
        batch = this.pending;
        this.pending = [];
        try {
          this.search.inBatch(() => {
            for (const write of batch) this.runWrite(write);
          });
        } catch (error) {
          // Rolled back whole (a write that checks first failed after a change, or the batch's
          // postings could not be put): what memory holds of it goes, and each write that ran is
          // told, before a later batch runs (one queued in the same transaction runs as soon as
          // this callback ends, long before its promise settles).
          this.forgetCaches();
          for (const write of batch) if (write.outcome?.ok) write.onRollBack?.();
          throw error;
        }
        // Told once every write of the batch has run and its postings are put, so nothing of a
        // batch rolled back whole reaches a realm's log.
        for (const write of batch) if (write.outcome?.ok) write.recorded?.(write.changes, write.outcome.result);
      });
    } catch (error) {
      // LMDB took no transaction (the store is closed): the writes waiting for it are refused.
      for (const write of this.pending.splice(0)) write.reject(error);
      return;
    }
    queued.then(
      () => {
        this.storageFailure = null;
        for (const write of batch) {
          if (write.outcome?.ok) write.resolve({ result: write.outcome.result, changes: write.changes });
          else write.reject(write.outcome?.error);
        }
      },
      async (error: unknown) => {
        // Nothing of the batch was kept: what memory holds of it goes, and every write of it
        // learns why (a write that failed on its own, with its own error).
        this.forgetCaches();
        if (error instanceof BatchSpoiled) return this.spoiled(batch, error);
        const failure = new StorageError(await rootCause(error));
        this.storageFailure = failure.reason;
        for (const write of batch) write.reject(write.outcome?.ok === false && !isStorageFailure(write.outcome.error) ? write.outcome.error : failure);
      },
    );
  }

  /** A batch rolled back whole because `spoiled.write` failed after changing it: that write is
   * refused with its error, every other with its own error or as rolled back with the batch. Those
   * that never ran are refused too rather than run in a later batch: a realm's writes are answered
   * in the order they were asked, which its memory's reload after a refusal relies on. */
  private spoiled(batch: PendingWrite[], spoiled: BatchSpoiled): void {
    const failure = isStorageFailure(spoiled.error) ? new StorageError(spoiled.error) : undefined;
    if (failure) this.storageFailure = failure.reason;
    for (const write of batch) {
      if (write === spoiled.write) write.reject(failure ?? spoiled.error);
      else write.reject(write.outcome?.ok === false ? write.outcome.error : new RolledBackWithBatch('rolled back with its batch, which another write failed after changing'));
    }
  }

  /** Runs one write of a batch, in a child transaction unless it `checksFirst`. A write that fails
   * is rolled back (with the whole batch, should one that checks first fail after changing it),
   * and what it cached in memory may not have been committed: the caches are forgotten (of the
   * rows in memory, those it loaded or changed), its deferred postings taken back. */
  private runWrite(write: PendingWrite): void {
    this.tap.current = write.recorded ? write.changes : undefined;
    const changesBefore = this.tap.count;
    this.userMessages.beginWrite();
    this.search.beginWrite();
    this.channelTopics.beginWrite();
    try {
      // The callback returns nothing: lmdb-js would wait for a returned promise (a put's, say) to
      // settle before finishing the child transaction, after the batch's transaction is gone.
      let result: unknown;
      if (write.guarded) {
        this.env.transactionSync(() => {
          result = write.run();
        });
      } else {
        result = write.run();
      }
      write.outcome = { ok: true, result };
      this.userMessages.endWrite();
      this.search.endWrite();
    } catch (error) {
      this.userMessages.rollBackWrite();
      this.search.rollBackWrite();
      if (!write.guarded && this.tap.count !== changesBefore) {
        // The batch is rolled back whole (startBatch forgets what memory holds of it).
        write.onRollBack?.();
        throw new BatchSpoiled(write, error);
      }
      this.forgetCaches(true);
      write.onRollBack?.();
      write.outcome = { ok: false, error: isStorageFailure(error) ? new StorageError(error) : error };
    } finally {
      this.tap.current = undefined;
    }
  }

  /** Where this node's copy of a realm stands in the realm's log (cluster mode). */
  logPosition(realmId: number): LogPosition | undefined {
    return this.logPositions.get(realmId);
  }

  async setLogPosition(realmId: number, position: LogPosition): Promise<void> {
    await this.write(() => this.logPositions.put(realmId, position));
  }

  /** Keeps event queues across a graceful restart (EventQueues' shelf; the store does not look
   * inside them). */
  async saveQueues(snapshots: readonly Shelved[]): Promise<void> {
    await this.write(() => {
      for (const snapshot of snapshots) this.queues.put(snapshot.id, snapshot);
    });
  }

  /** The queues saved, in the shape they were saved in (`T`, the caller's). */
  async takeSavedQueues<T extends Shelved>(): Promise<T[]> {
    const saved = [...this.queues.getRange()].map(({ value }) => value as T);
    await this.write(() => {
      for (const snapshot of saved) this.queues.remove(snapshot.id);
    });
    return saved;
  }

  /** A realm's presence table as last saved (realm actors save it coarsely, never per report). */
  savedPresence(realmId: number): PresenceSnapshot | undefined {
    return this.presence.get(realmId);
  }

  /** Saves a realm's presence table, or (undefined) forgets it: the shard no longer holds the realm. */
  async savePresence(realmId: number, snapshot: PresenceSnapshot | undefined): Promise<void> {
    await this.write(() => (snapshot ? this.presence.put(realmId, snapshot) : this.presence.remove(realmId)));
  }

  /** The key of a direct-message group's recipient ID (participants sorted): see the layout above. */
  dmRecipientKey(realmId: number, participants: readonly number[]): string {
    const list = participants.join(',');
    return list.length <= KEY_TEXT_LIMIT ? `dm:${realmId}:${list}` : `dmh:${realmId}:${createHash('sha256').update(list).digest('hex')}`;
  }

  /** Throws (`IdsExhausted`) unless the write under way can take as many IDs of each kind as
   * `counts` says: a write that checks first calls it before its first change. The store's own
   * counters never run out; a cluster's blocks can. */
  ensureIds(counts: Partial<Record<IdKind, number>>): void {
    if (!this.ids) return;
    for (const [kind, count] of Object.entries(counts) as [IdKind, number][]) this.ids.ensure(kind, count);
  }

  /** Hands out the next server-wide ID of a kind. Call inside `write`: the counter is stored in the
   * same transaction as the row that uses it. */
  nextId(kind: IdKind): number {
    if (this.ids) return this.ids.next(kind);
    const id = this.counters?.next(kind) ?? (this.lastIds.get(kind) ?? this.lastId(kind)) + 1;
    this.lastIds.set(kind, id);
    this.meta.put(`ids:${kind}`, id);
    return id;
  }

  /** The last ID of a kind this store recorded (0: none yet). */
  lastId(kind: IdKind): number {
    return this.meta.get(`ids:${kind}`) ?? 0;
  }

  async close(): Promise<void> {
    await this.env.flushed;
    await this.env.close();
  }
}
