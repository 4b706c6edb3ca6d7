// What a command sees while it runs: the realm's state, the store, the clock and the acting user.
import { nowSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { EventQueues } from '../events/queues.js';
import type { Emitted, ZulipEvent } from '../events/types.js';
import type { Store } from '../store/store.js';
import type { Owner } from '../store/tables.js';
import type { UserRecord } from '../users/records.js';
import type { ChannelRecord, FolderRecord, SubscriptionRecord } from '../channels/records.js';
import type { GroupRecord } from '../groups/records.js';
import type { LinkifierRecord } from '../messages/linkifiers.js';
import type { ScheduledMessageRecord } from '../messages/records.js';
import type { FieldRecord } from '../users/profileFields.js';
import { fakeEmailDomain, type RealmRecord } from '../organization/records.js';
import type { RealmState } from '../organization/state.js';

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
}
export type RowKind = keyof Rows;
type RemovableKind = 'linkifier' | 'scheduledMessage';

/** How a kind of row is stored, and how the realm's memory follows it (nothing for rows only LMDB
 * holds). */
interface Mirror<T> {
  put(store: Store, realmId: number, row: T): void;
  remove?(store: Store, realmId: number, row: T): void;
  keep?(state: RealmState, row: T): void;
  forget?(state: RealmState, row: T): void;
}

const mirrors: { [K in RowKind]: Mirror<Rows[K]> } = {
  user: { put: (store, _realm, user) => store.users.put(user), keep: (state, user) => state.indexUser(user) },
  channel: { put: (store, _realm, channel) => store.channels.put(channel), keep: (state, channel) => state.indexChannel(channel) },
  subscription: { put: (store, _realm, subscription) => store.subscriptions.put(subscription), keep: (state, subscription) => state.indexSubscription(subscription) },
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
  },
};

export class CommandContext {
  /** UNIX seconds at the start of the command. */
  readonly now: number;
  /** Events to deliver once the command's transaction is committed. */
  readonly emitted: Emitted[] = [];
  /** Effects outside LMDB (event queues), run after the commit and the events. */
  readonly committed: (() => void)[] = [];
  /** Set when a scheduled message was added, moved or removed: the delivery timer is re-armed. */
  scheduleChanged = false;

  constructor(
    readonly state: RealmState,
    readonly store: Store,
    readonly config: Config,
    readonly queues: EventQueues,
    private readonly userId: number | null,
  ) {
    this.now = nowSeconds(config.clock);
  }

  /** Announces a change to exactly these users, after the commit. */
  emit(event: ZulipEvent, userIds: Iterable<number>, extra: Pick<Emitted, 'message' | 'forQueue'> = {}): void {
    this.emitted.push({ event, userIds, ...extra });
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

  /** Runs an effect outside LMDB once the command's transaction is committed. */
  afterCommit(effect: () => void): void {
    this.committed.push(effect);
  }

  /** The one save step: stores a row of the realm's tables and, for those memory mirrors, updates
   * the realm's memory with it. Call inside a write command. */
  save<K extends RowKind>(kind: K, row: Rows[K]): void {
    const mirror = mirrors[kind] as Mirror<Rows[K]>;
    mirror.put(this.store, this.state.realm.id, row);
    mirror.keep?.(this.state, row);
    if (kind === 'scheduledMessage') this.scheduleChanged = true;
  }

  /** Removes a row saved with `save`, from LMDB and from memory. */
  remove<K extends RemovableKind>(kind: K, row: Rows[K]): void {
    const mirror = mirrors[kind] as Mirror<Rows[K]>;
    mirror.remove!(this.store, this.state.realm.id, row);
    mirror.forget?.(this.state, row);
    if (kind === 'scheduledMessage') this.scheduleChanged = true;
  }

  /** Changes the realm record, stored and in memory; call inside a write command. */
  saveRealm(changes: Partial<RealmRecord>): void {
    const realm = { ...this.state.realm, ...changes };
    this.store.realms.put(realm.id, realm);
    this.state.realm = realm;
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
  /** Reads run after every earlier write of the realm is durable; writes run inside one. */
  readonly mode: 'read' | 'write';
  run(ctx: CommandContext, input: I): O;
}

export const readCommand = <I, O>(run: (ctx: CommandContext, input: I) => O): CommandDef<I, O> => ({ mode: 'read', run });
export const writeCommand = <I, O>(run: (ctx: CommandContext, input: I) => O): CommandDef<I, O> => ({ mode: 'write', run });
