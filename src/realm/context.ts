// What a command sees while it runs: the realm's state, the store, the clock and the acting user.
import { nowSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { EventSink } from '../events/queues.js';
import type { QueueHolders } from './links.js';
import type { Emitted, ZulipEvent } from '../events/types.js';
import { botStorageId, type Store } from '../store/store.js';
import type { OwnedTable, Owner } from '../store/tables.js';
import type { NavigationViewRecord } from '../users/navigationViews.js';
import type { UserRecord } from '../users/records.js';
import type { ChannelRecord, FolderRecord, SubscriptionRecord } from '../channels/records.js';
import type { GroupRecord } from '../groups/records.js';
import type { AttachmentRecord } from '../messages/attachments.js';
import type { RealmEmojiRecord } from '../emoji/custom.js';
import type { LinkifierRecord } from '../messages/linkifiers.js';
import type { PlaygroundRecord } from '../messages/playgrounds.js';
import type { InviteRecord } from '../users/invites.js';
import type { MessageRecord, ScheduledMessageRecord } from '../messages/records.js';
import type { SavedSnippetRecord } from '../messages/savedSnippets.js';
import type { BotStorageEntry, BotStorageSize } from '../users/botStorage.js';
import type { EmailBatchRecord } from '../messages/notifications.js';
import { tokenKey, type OutboxRecord, type PushTokenRecord, type ShownRecord } from '../push/records.js';
import type { PresenceTable, PresenceView } from '../users/presence.js';
import type { FieldRecord } from '../users/profileFields.js';
import { fakeEmailDomain, type RealmRecord } from '../organization/records.js';
import type { RealmExportRecord } from '../organization/exports.js';
import type { ServiceDeliveryRecord } from '../integrations/outgoing.js';
import type { RealmState, RealmView } from '../organization/state.js';

/** The rows commands save, by kind. */
interface Rows {
  user: UserRecord;
  channel: ChannelRecord;
  subscription: SubscriptionRecord;
  group: GroupRecord;
  folder: FolderRecord;
  profileField: FieldRecord;
  linkifier: LinkifierRecord;
  scheduledMessage: ScheduledMessageRecord;
  attachment: AttachmentRecord;
  realmEmoji: RealmEmojiRecord;
  playground: PlaygroundRecord;
  invite: InviteRecord;
  /** A data export requested over the API. */
  realmExport: RealmExportRecord;
  /** A user's saved snippet, stored under its owner. */
  savedSnippet: SavedSnippetRecord & { userId: number };
  /** A key and value of a bot's storage, stored under the bot. */
  botStorageEntry: BotStorageEntry & { userId: number };
  /** How much a bot's storage holds. */
  botStorageSize: BotStorageSize & { userId: number };
  /** A user's navigation view, stored under its owner. */
  navigationView: NavigationViewRecord & { userId: number };
  /** A push notification waiting to be sent. */
  notification: OutboxRecord;
  /** A phone's token of the older push registration, stored under its owner. */
  pushToken: PushTokenRecord & { userId: number };
  /** A message whose notification is shown on a user's phones. */
  pushShown: ShownRecord & { userId: number };
  /** A user's missed messages waiting to be e-mailed. */
  emailBatch: EmailBatchRecord;
  /** A message waiting for an outgoing-webhook bot's service. */
  serviceDelivery: ServiceDeliveryRecord;
}
export type RowKind = keyof Rows;
type RemovableKind = 'linkifier' | 'scheduledMessage' | 'attachment' | 'savedSnippet' | 'botStorageEntry' | 'playground' | 'navigationView' | 'notification' | 'pushToken' | 'pushShown' | 'emailBatch' | 'serviceDelivery';

/** How a kind of row is stored, and how the realm's memory follows it (nothing for rows only LMDB
 * holds). */
interface Mirror<T> {
  put(store: Store, realmId: number, row: T): void;
  remove?(store: Store, realmId: number, row: T): void;
  keep?(state: RealmState, row: T): void;
  forget?(state: RealmState, row: T): void;
  /** What is derived from the realm's memory that reads these rows, where not all of it may (JSON
   * kept between requests, credentials, the rendering context): nothing, so that saving one leaves
   * it all be, or only what is derived from subscriptions (channels' views and subscribers). */
  readBy?: 'nothing' | 'subscriptionViews';
  /** For rows the realm's notifier sends: when the row falls due (milliseconds on the clock). */
  dueMs?(row: T): number;
}

/** Rows of a user's own kept under their owner by their ID, only in LMDB. */
function ownedById<R extends { id: number }>(table: (store: Store) => OwnedTable<R>): Mirror<R & { userId: number }> {
  return {
    put: (store, realmId, row) => table(store).put({ realmId, userId: row.userId }, row),
    remove: (store, realmId, row) => table(store).remove({ realmId, userId: row.userId }, row.id),
  };
}

const mirrors: { [K in RowKind]: Mirror<Rows[K]> } = {
  user: { put: (store, _realm, user) => store.users.put(user), keep: (state, user) => state.indexUser(user) },
  channel: { put: (store, _realm, channel) => store.channels.put(channel), keep: (state, channel) => state.indexChannel(channel) },
  subscription: { put: (store, _realm, subscription) => store.subscriptions.put(subscription), keep: (state, subscription) => state.indexSubscription(subscription), readBy: 'subscriptionViews' },
  group: { put: (store, _realm, group) => store.groups.put(group), keep: (state, group) => state.indexGroup(group) },
  folder: { put: (store, _realm, folder) => store.folders.put(folder), keep: (state, folder) => state.folders.set(folder.id, folder) },
  profileField: { put: (store, _realm, field) => store.profileFields.put(field), keep: (state, field) => state.profileFields.set(field.id, field) },
  linkifier: {
    put: (store, _realm, linkifier) => store.linkifiers.put(linkifier),
    remove: (store, _realm, linkifier) => store.linkifiers.remove(linkifier),
    keep: (state, linkifier) => state.indexLinkifier(linkifier),
    forget: (state, linkifier) => state.dropLinkifier(linkifier.id),
  },
  scheduledMessage: {
    put: (store, realmId, message) => store.scheduledMessages.put({ realmId, userId: message.senderId }, message),
    remove: (store, realmId, message) => store.scheduledMessages.remove({ realmId, userId: message.senderId }, message.id),
    keep: (state, message) => state.indexScheduled(message),
    forget: (state, message) => state.pendingDeliveries.delete(message.id),
    readBy: 'nothing',
  },
  realmEmoji: {
    put: (store, _realm, emoji) => store.realmEmoji.put(emoji),
    keep: (state, emoji) => state.realmEmoji.set(emoji.id, emoji),
  },
  attachment: {
    put: (store, _realm, attachment) => store.attachments.put(attachment),
    remove: (store, _realm, attachment) => store.attachments.remove(attachment),
    keep: (state, attachment) => state.indexAttachment(attachment),
    forget: (state, attachment) => state.dropAttachment(attachment),
    readBy: 'nothing',
  },
  playground: { put: (store, _realm, playground) => store.playgrounds.put(playground), remove: (store, _realm, playground) => store.playgrounds.remove(playground) },
  invite: { put: (store, _realm, invite) => store.invites.put(invite) },
  realmExport: { put: (store, _realm, record) => store.realmExports.put(record) },
  savedSnippet: ownedById((store) => store.savedSnippets),
  navigationView: ownedById((store) => store.navigationViews),
  botStorageEntry: {
    put: (store, realmId, { userId, key, value }) => store.botStorage.put({ realmId, userId }, { key, value }),
    remove: (store, realmId, { userId, key }) => store.botStorage.remove({ realmId, userId }, ...botStorageId(key)),
  },
  botStorageSize: { put: (store, realmId, { userId, characters }) => store.botStorageSizes.put({ realmId, userId }, { characters }) },
  notification: { put: (store, _realm, row) => store.notificationOutbox.put(row), remove: (store, _realm, row) => store.notificationOutbox.remove(row), dueMs: (row) => row.dueAt },
  pushToken: {
    put: (store, realmId, { userId, ...token }) => store.pushTokens.put({ realmId, userId }, token),
    remove: (store, realmId, token) => store.pushTokens.remove({ realmId, userId: token.userId }, token.kind, tokenKey(token.token)),
  },
  pushShown: {
    put: (store, realmId, { userId, ...shown }) => store.pushShown.put({ realmId, userId }, shown),
    remove: (store, realmId, shown) => store.pushShown.remove({ realmId, userId: shown.userId }, shown.messageId, shown.route),
  },
  emailBatch: { put: (store, _realm, row) => store.emailBatches.put(row), remove: (store, _realm, row) => store.emailBatches.remove(row), dueMs: (row) => row.dueAt * 1000 },
  serviceDelivery: { put: (store, _realm, row) => store.serviceOutbox.put(row), remove: (store, _realm, row) => store.serviceOutbox.remove(row), dueMs: (row) => row.dueAt },
};

/** What a read command may use: the realm's state and the store, and nothing that writes or
 * announces. */
export type ReadContext = Pick<CommandContext, 'now' | 'store' | 'config' | 'events' | 'hasUser' | 'user' | 'activeUserIds' | 'ownerOf' | 'fakeEmailDomain'> & {
  readonly state: RealmView;
  readonly presence: PresenceView;
};

/** What a live command may use: a read command's view, the realm's in-memory presence, and
 * events — but nothing that writes LMDB (typing and presence reports, the hot paths). */
export type LiveContext = ReadContext & Pick<CommandContext, 'emit' | 'presence'>;

export class CommandContext {
  /** UNIX seconds at the start of the command. */
  readonly now: number;
  /** Events to deliver once the command's transaction is committed. */
  readonly emitted: Emitted[] = [];
  /** Set when a scheduled message was added, moved or removed: the delivery timer is re-armed. */
  scheduleChanged = false;
  /** When the earliest notification or e-mail batch this command queued or moved falls due
   * (milliseconds on the server's clock): the realm's notifier is woken for it. */
  notifyAt: number | undefined;
  /** Set when a data export was requested: the realm's exporter looks for work after the commit. */
  exportRequested = false;
  /** Set once the command has changed the realm's memory: if it then fails, even with an expected
   * refusal, LMDB rolls its writes back and the memory must be reloaded to match. */
  changedMemory = false;
  /** Set once the command has changed what is derived from the realm's memory: the JSON kept of it
   * is made again, and the copies kept elsewhere (credentials, the rendering context) are told. */
  changedDerived = false;

  constructor(
    readonly state: RealmState,
    readonly store: Store,
    readonly config: Config,
    /** Where the realm's emissions go (a registration reads the position there). */
    readonly events: EventSink,
    /** Who holds the realm's event queues, on any node (connected users, all_public_streams). */
    readonly holders: QueueHolders,
    /** Who was last seen when: memory only, saved coarsely by the actor (never by a command). */
    readonly presence: PresenceTable,
    private readonly userId: number | null,
  ) {
    this.now = nowSeconds(config.clock);
  }

  /** Announces a change to exactly these users, after the commit. */
  emit(event: ZulipEvent, userIds: Iterable<number>, extra: Pick<Emitted, 'message' | 'allPublicStreamsOnly' | 'closesQueuesOf' | 'localEcho' | 'capability'> = {}): void {
    this.emitted.push({ event, userIds: Array.isArray(userIds) ? userIds : [...userIds], ...extra });
  }

  /** False for commands of the system itself (management CLI, demo seed). */
  get hasUser(): boolean {
    return this.userId !== null;
  }

  /** The user the command runs for; checked again here because the user may have been deactivated
   * between authentication and this command. */
  get user(): UserRecord {
    const user = this.userId === null ? undefined : this.state.users.get(this.userId);
    if (!user) throw errors.unauthorized();
    if (!user.isActive) throw errors.userDeactivated();
    return user;
  }


  /** The one save step: stores a row of the realm's tables and, for those memory mirrors, updates
   * the realm's memory with it. Call inside a write command. */
  save<K extends RowKind>(kind: K, row: Rows[K]): void {
    const mirror = mirrors[kind] as Mirror<Rows[K]>;
    mirror.put(this.store, this.state.realm.id, row);
    if (mirror.keep) {
      this.changedMemory = true;
      mirror.keep(this.state, row);
      this.rowsChanged(mirror.readBy);
    }
    if (kind === 'scheduledMessage') this.scheduleChanged = true;
    const dueMs = mirror.dueMs?.(row);
    if (dueMs !== undefined) this.notifyAt = Math.min(this.notifyAt ?? dueMs, dueMs);
  }

  /** Removes a row saved with `save`, from LMDB and from memory. */
  remove<K extends RemovableKind>(kind: K, row: Rows[K]): void {
    const mirror = mirrors[kind] as Mirror<Rows[K]>;
    mirror.remove!(this.store, this.state.realm.id, row);
    if (mirror.forget) {
      this.changedMemory = true;
      mirror.forget(this.state, row);
      this.rowsChanged(mirror.readBy);
    }
    if (kind === 'scheduledMessage') this.scheduleChanged = true;
  }

  /** Changes the realm record, stored and in memory; call inside a write command. */
  saveRealm(changes: Partial<RealmRecord>): void {
    const realm = { ...this.state.realm, ...changes };
    this.store.realms.put(realm.id, realm);
    this.changedMemory = true;
    this.state.realm = realm;
    this.derivedChanged();
  }

  /** A row read by `readBy` (Mirror's) changed in memory: what is derived from it is derived anew. */
  private rowsChanged(readBy: Mirror<unknown>['readBy']): void {
    if (readBy === 'nothing') return;
    if (readBy === 'subscriptionViews') this.state.subscriptionsChanged();
    else this.derivedChanged();
  }

  private derivedChanged(): void {
    this.changedDerived = true;
    this.state.changed();
  }

  /** Stores a message (Store.saveMessage's arguments) and forgets its views kept as JSON; call
   * inside a write command. A read waits for the writes before it to be durable, so none keeps a
   * view of the record this one replaces; a write rolled back leaves none of the new one. */
  saveMessage(message: MessageRecord, before?: MessageRecord, contentTerms?: readonly string[]): void {
    this.store.saveMessage(message, before, contentTerms);
    this.state.messageJson.forget(message.id);
  }

  /** Removes a message (Store.removeMessage) and forgets its views kept as JSON; call inside a
   * write command. */
  removeMessage(message: MessageRecord): void {
    this.store.removeMessage(message);
    this.state.messageJson.forget(message.id);
  }

  /** Every active user of the realm: who organization-wide events go to. */
  activeUserIds(): number[] {
    const ids: number[] = [];
    for (const user of this.state.users.values()) if (user.isActive) ids.push(user.id);
    return ids;
  }

  /** Whose rows a user's owned tables (drafts, topics, push devices) hold. */
  ownerOf(userId: number): Owner {
    return { realmId: this.state.realm.id, userId };
  }

  get fakeEmailDomain(): string {
    return fakeEmailDomain(this.state.realm, this.config.externalHost);
  }
}

export interface CommandDef<I, O> {
  /** Reads and live commands run after every earlier write of the realm is durable, live ones
   * announcing at once what they changed in memory; writes run inside one transaction; instant
   * reads run at once, outside the mailbox, against memory as the writes that ran so far left it
   * (credentials: a regenerated key or a deactivation is refused from the moment its write ran). */
  readonly mode: 'instant' | 'read' | 'live' | 'write';
  /** A write that makes every check, and takes every ID it may need (`Store.ensureIds`), before its
   * first change (Store's `WriteOptions`): it runs without a child transaction of its own. */
  readonly checksFirst?: boolean;
  run(ctx: CommandContext, input: I): O;
}

export const readCommand = <I, O>(run: (ctx: ReadContext, input: I) => O): CommandDef<I, O> => ({ mode: 'read', run });
export const instantCommand = <I, O>(run: (ctx: ReadContext, input: I) => O): CommandDef<I, O> => ({ mode: 'instant', run });
export const liveCommand = <I, O>(run: (ctx: LiveContext, input: I) => O): CommandDef<I, O> => ({ mode: 'live', run });
export const writeCommand = <I, O>(run: (ctx: CommandContext, input: I) => O, { checksFirst = false } = {}): CommandDef<I, O> => ({ mode: 'write', checksFirst, run });
