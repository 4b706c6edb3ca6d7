// The hot, in-memory state of one realm (realm/load.ts fills it from LMDB when the realm actor is
// activated). Only the realm actor changes it, inside the write transaction that persists the change.
import type { ChannelRecord, FolderRecord, SubscriptionRecord } from '../channels/records.js';
import type { AttachmentRecord } from '../messages/attachments.js';
import type { RealmEmojiRecord } from '../emoji/custom.js';
import type { GroupRecord, SystemGroupName } from '../groups/records.js';
import { compileLinkifier, type CompiledLinkifier, type LinkifierRecord } from '../messages/linkifiers.js';
import type { ScheduledMessageRecord } from '../messages/records.js';
import type { FieldRecord } from '../users/profileFields.js';
import type { UserRecord } from '../users/records.js';
import { activeUsersByName } from '../users/names.js';
import { keptJson, type KeptJsonHolder, type KeptJsonTally } from './keptJson.js';
import { MessageViews } from './messageViews.js';
import type { Principal } from '../auth/basic.js';
import type { RealmRecord } from './records.js';

/** The realm's state as read commands and the code they call see it: lookups, and nothing that
 * changes it (the write commands' `save` does, together with LMDB). */
export interface RealmView {
  readonly realm: Readonly<RealmRecord>;
  readonly users: ReadonlyMap<number, UserRecord>;
  readonly groups: ReadonlyMap<number, GroupRecord>;
  readonly systemGroupNames: ReadonlyMap<number, string>;
  readonly channels: ReadonlyMap<number, ChannelRecord>;
  readonly subscriptions: ReadonlyMap<number, ReadonlyMap<number, SubscriptionRecord>>;
  readonly profileFields: ReadonlyMap<number, FieldRecord>;
  readonly folders: ReadonlyMap<number, FolderRecord>;
  readonly attachments: ReadonlyMap<number, AttachmentRecord>;
  /** Custom emoji by ID, deactivated ones included. */
  readonly realmEmoji: ReadonlyMap<number, RealmEmojiRecord>;
  attachmentByPath(pathId: string): AttachmentRecord | undefined;
  uploadSpaceUsed(): number;
  nextDelivery(): number | undefined;
  dueDeliveries(now: number): { id: number; senderId: number }[];
  linkifiers(): LinkifierRecord[];
  compiledLinkifiers(): CompiledLinkifier[];
  systemGroup(name: SystemGroupName): number;
  channelByName(name: string): ChannelRecord | undefined;
  /** The channel whose conversation a recipient ID is (undefined: a direct-message group's). */
  channelByRecipient(recipientId: number): ChannelRecord | undefined;
  subscriberIds(channelId: number): readonly number[];
  conversationMembers(conversation: { channelId: number | null; participants: readonly number[] }): number[];
  channelsOf(userId: number): ChannelRecord[];
  subscription(channelId: number, userId: number): SubscriptionRecord | undefined;
  isSubscribed(channelId: number, userId: number): boolean;
  userByEmail(email: string): UserRecord | undefined;
  /** The first active user (in the users' order) whose full name, lowercased, is `lowercased`. */
  activeUserNamed(lowercased: string): UserRecord | undefined;
  /** Moved by every change to what rendering reads (users, groups, channels, linkifiers, the realm
   * record): a rendering made with an older version is made again. */
  readonly renderVersion: number;
  userByApiEmail(email: string, fakeDomain: string): UserRecord | undefined;
  userByApiKey(key: string): UserRecord | undefined;
  /** Each user's own User object (GET /users/me) as JSON, kept until the state next changes. */
  readonly ownUserJson: DerivedValues<number, string>;
  /** Users' entries in user lists (register's, GET /users) as JSON, by user, e-mail visibility,
   * client_gravatar and profile data, kept until the state next changes. */
  readonly listedUserJson: DerivedValues<number, string>;
  /** Each channel's view as JSON (the same for every viewer), kept until the state next changes. */
  readonly channelJson: DerivedValues<number, string>;
  /** Each channel's subscribers' IDs as JSON, kept until the state next changes. */
  readonly subscribersJson: DerivedValues<number, string>;
  /** Messages' views as JSON by message and by variant (MessageViewOptions' bits), within a
   * budget, good until the state next changes or the message does (CommandContext.saveMessage
   * and removeMessage forget it). */
  readonly messageJson: MessageViews;
  /** Accepted Authorization headers' users, kept until the state next changes. */
  readonly principals: DerivedValues<string, Principal>;
  /** Register's `realm` state (the same for every user of the realm), kept until the state next changes. */
  readonly realmRegisterState: DerivedValues<null, object>;
}

/** Values derived from a realm's state and kept until it next changes (its `version` moves: all go
 * at the next use); at most `limit` keys at once (reaching it forgets them all: keys a client
 * chooses cannot grow it without bound). A derivation that throws keeps nothing. */
export class DerivedValues<K, V> {
  private readonly values = new Map<K, V>();
  private version: number;

  constructor(
    private readonly state: { readonly version: number },
    private readonly limit = Infinity,
  ) {
    this.version = state.version;
  }

  get(key: K, derive: () => V): V {
    if (this.version !== this.state.version) this.clear();
    const kept = this.values.get(key);
    if (kept !== undefined) {
      this.used();
      return kept;
    }
    const value = derive();
    if (this.values.size >= this.limit) this.clear();
    this.values.set(key, value);
    this.kept(value);
    return value;
  }

  clear(): void {
    this.values.clear();
    this.version = this.state.version;
    this.cleared();
  }

  /** A kept value was served. */
  protected used(): void {}
  /** A value was kept. */
  protected kept(_value: V): void {}
  /** Every value was let go of. */
  protected cleared(): void {}
}

/** Derived JSON, counted in the process's ledger of kept JSON (keptJson.ts), which may have the
 * realm give it up. */
export class DerivedJson<K> extends DerivedValues<K, string> {
  private characters = 0;

  constructor(
    state: { readonly version: number },
    private readonly tally: KeptJsonTally,
    limit?: number,
  ) {
    super(state, limit);
  }

  protected override used(): void {
    this.tally.touch();
  }

  protected override kept(value: string): void {
    this.characters += value.length;
    this.tally.add(value.length);
  }

  protected override cleared(): void {
    const characters = this.characters;
    this.characters = 0;
    if (characters > 0) this.tally.add(-characters);
  }
}

/** How many accepted Authorization headers a realm keeps (a few per user of a large realm). */
export const KEPT_PRINCIPALS = 20_000;
/** How many users' list entries a realm keeps as JSON at most (~400 bytes each, ~160 MB at most;
 * reaching it forgets them all): every user of a realm of 100,000 in the four variants register
 * can ask for (e-mail visibility × client_gravatar; GET /users has four more, without profile
 * data). Past it, a realm of more users makes its entries again more often. */
const KEPT_USER_ENTRIES = 400_000;

/** Render versions, unique in the process: a realm's state reloaded after a failed write starts
 * from a number no rendering made before it carries. */
let renderVersions = 0;

export class RealmState implements RealmView, KeptJsonHolder {
  readonly users = new Map<number, UserRecord>();
  private readonly byEmail = new Map<string, UserRecord>();
  readonly groups = new Map<number, GroupRecord>();
  /** System group ID → name, and back. */
  readonly systemGroupNames = new Map<number, string>();
  private readonly systemGroupIds = new Map<string, number>();
  readonly channels = new Map<number, ChannelRecord>();
  private readonly channelsByName = new Map<string, ChannelRecord>();
  private readonly channelsByRecipient = new Map<number, ChannelRecord>();
  /** channelId → userId → subscription (active or not). */
  readonly subscriptions = new Map<number, Map<number, SubscriptionRecord>>();
  readonly profileFields = new Map<number, FieldRecord>();
  readonly folders = new Map<number, FolderRecord>();
  /** Scheduled messages waiting for their time: ID → when (UNIX seconds) and whose. */
  readonly pendingDeliveries = new Map<number, { deliverAt: number; senderId: number }>();
  private readonly linkifierRecords = new Map<number, { record: LinkifierRecord; compiled: CompiledLinkifier }>();
  /** Uploaded files by ID and by path ID. */
  readonly attachments = new Map<number, AttachmentRecord>();
  readonly realmEmoji = new Map<number, RealmEmojiRecord>();
  private readonly attachmentsByPath = new Map<string, AttachmentRecord>();
  private uploadBytes = 0;
  /** Moved by every change after loading to what is derived from the state, but to subscriptions
   * (`changed`). */
  private changes = 0;
  /** Moved by every change to subscriptions after loading (`subscriptionsChanged`). */
  private subscriptionChanges = 0;
  /** The version of what is derived without reading subscriptions: a subscription changed leaves
   * it be. */
  private readonly apartFromSubscriptions = ((state: RealmState) => ({
    get version(): number {
      return state.changes;
    },
  }))(this);
  private renderChanges = ++renderVersions;
  /** This state's count in the process's ledger of kept JSON. */
  private readonly keptJson = keptJson.open(this);
  readonly ownUserJson = new DerivedJson<number>(this.apartFromSubscriptions, this.keptJson);
  readonly listedUserJson = new DerivedJson<number>(this.apartFromSubscriptions, this.keptJson, KEPT_USER_ENTRIES);
  /** A channel's view counts its subscribers. */
  readonly channelJson = new DerivedJson<number>(this, this.keptJson);
  readonly subscribersJson = new DerivedJson<number>(this, this.keptJson);
  readonly messageJson = new MessageViews(this.apartFromSubscriptions, this.keptJson);
  readonly principals = new DerivedValues<string, Principal>(this.apartFromSubscriptions, KEPT_PRINCIPALS);
  readonly realmRegisterState = new DerivedValues<null, object>(this.apartFromSubscriptions);
  /** Active users by full name lowercased, the first of each name: a mention looks a name up per
   * message, which scanning every user made cost as much as the realm is large. */
  private readonly activeUsersByName = new DerivedValues<null, Map<string, UserRecord>>(this.apartFromSubscriptions);
  private readonly subscribers = new DerivedValues<number, readonly number[]>(this);
  /** Users by API key: an incoming webhook names its bot by the key alone. */
  private readonly usersByApiKey = new DerivedValues<null, Map<string, UserRecord>>(this.apartFromSubscriptions);

  constructor(private record: RealmRecord) {}

  get realm(): RealmRecord {
    return this.record;
  }

  set realm(record: RealmRecord) {
    this.record = record;
    this.renderingChanged();
  }

  /** Moved by every change to what is derived from the state, subscriptions included. */
  get version(): number {
    return this.changes + this.subscriptionChanges;
  }

  get renderVersion(): number {
    return this.renderChanges;
  }

  /** What rendering reads changed: renderings made before are made again. */
  private renderingChanged(): void {
    this.renderChanges = ++renderVersions;
  }

  /** Called by every change made after loading to what is derived from the state (CommandContext;
   * not for attachments and scheduled messages, which nothing derived reads): it is derived anew. */
  changed(): void {
    this.changes++;
  }

  /** Called by every change to subscriptions made after loading: what is derived from them (the
   * channels' views and subscribers) is derived anew, the rest kept. */
  subscriptionsChanged(): void {
    this.subscriptionChanges++;
  }

  /** Gives up the JSON kept of this state (the process's ledger of kept JSON is past its budget). */
  dropKeptJson(): void {
    for (const kept of [this.ownUserJson, this.listedUserJson, this.channelJson, this.subscribersJson, this.messageJson]) kept.clear();
  }

  indexAttachment(record: AttachmentRecord): void {
    this.uploadBytes += record.size - (this.attachments.get(record.id)?.size ?? 0);
    this.attachments.set(record.id, record);
    this.attachmentsByPath.set(record.pathId, record);
  }

  dropAttachment(record: AttachmentRecord): void {
    if (!this.attachments.delete(record.id)) return;
    this.attachmentsByPath.delete(record.pathId);
    this.uploadBytes -= record.size;
  }

  attachmentByPath(pathId: string): AttachmentRecord | undefined {
    return this.attachmentsByPath.get(pathId);
  }

  /** Bytes of every file uploaded to the realm (Zulip's upload_space_used). */
  uploadSpaceUsed(): number {
    return this.uploadBytes;
  }

  /** Tracks a scheduled message's delivery time while it waits for it. */
  indexScheduled(message: ScheduledMessageRecord): void {
    if (message.state === 'scheduled') this.pendingDeliveries.set(message.id, { deliverAt: message.deliverAt, senderId: message.senderId });
    else this.pendingDeliveries.delete(message.id);
  }

  /** The earliest delivery time waited for, if any. */
  nextDelivery(): number | undefined {
    let next: number | undefined;
    for (const { deliverAt } of this.pendingDeliveries.values()) if (next === undefined || deliverAt < next) next = deliverAt;
    return next;
  }

  /** Scheduled messages whose time has come, in delivery order (time, then ID). */
  dueDeliveries(now: number): { id: number; senderId: number }[] {
    const due: { id: number; senderId: number; deliverAt: number }[] = [];
    for (const [id, { deliverAt, senderId }] of this.pendingDeliveries) if (deliverAt <= now) due.push({ id, senderId, deliverAt });
    return due.sort((a, b) => a.deliverAt - b.deliverAt || a.id - b.id);
  }

  /** Keeps a linkifier with its compiled matcher (compiled once, not per message). */
  indexLinkifier(record: LinkifierRecord): void {
    this.renderingChanged();
    this.linkifierRecords.set(record.id, { record, compiled: compileLinkifier(record.pattern, record.urlTemplate) });
  }

  dropLinkifier(id: number): void {
    this.renderingChanged();
    this.linkifierRecords.delete(id);
  }

  /** The realm's linkifiers in their order. */
  linkifiers(): LinkifierRecord[] {
    return [...this.linkifierRecords.values()].map(({ record }) => record).sort((a, b) => a.order - b.order);
  }

  compiledLinkifiers(): CompiledLinkifier[] {
    return [...this.linkifierRecords.values()].sort((a, b) => a.record.order - b.record.order).map(({ compiled }) => compiled);
  }

  indexGroup(group: GroupRecord): void {
    this.renderingChanged();
    this.groups.set(group.id, group);
    if (group.isSystemGroup) {
      this.systemGroupNames.set(group.id, group.name);
      this.systemGroupIds.set(group.name, group.id);
    }
  }

  systemGroup(name: SystemGroupName): number {
    const id = this.systemGroupIds.get(name);
    if (id === undefined) throw new Error(`realm ${this.realm.id} lacks system group ${name}`);
    return id;
  }

  indexChannel(channel: ChannelRecord): void {
    this.renderingChanged();
    const previous = this.channels.get(channel.id);
    if (previous) this.channelsByName.delete(previous.name.toLowerCase());
    this.channels.set(channel.id, channel);
    this.channelsByName.set(channel.name.toLowerCase(), channel);
    this.channelsByRecipient.set(channel.recipientId, channel);
  }

  channelByName(name: string): ChannelRecord | undefined {
    return this.channelsByName.get(name.toLowerCase());
  }

  channelByRecipient(recipientId: number): ChannelRecord | undefined {
    return this.channelsByRecipient.get(recipientId);
  }

  indexSubscription(subscription: SubscriptionRecord): void {
    let byUser = this.subscriptions.get(subscription.channelId);
    if (!byUser) this.subscriptions.set(subscription.channelId, (byUser = new Map()));
    byUser.set(subscription.userId, subscription);
  }

  /** IDs of a channel's subscribers (active subscriptions of active users), derived once per
   * state version: every message to the channel asks. */
  subscriberIds(channelId: number): readonly number[] {
    return this.subscribers.get(channelId, () => {
      const ids: number[] = [];
      for (const subscription of this.subscriptions.get(channelId)?.values() ?? []) {
        if (subscription.active && this.users.get(subscription.userId)?.isActive) ids.push(subscription.userId);
      }
      return ids;
    });
  }

  /** Users who may hold message rows of a conversation: everyone ever subscribed to the channel
   * (rows are made for subscribers and stay after unsubscribing), or a direct message's
   * participants. Finding a message's holders visits these, not every user of the realm. */
  conversationMembers(conversation: { channelId: number | null; participants: readonly number[] }): number[] {
    if (conversation.channelId === null) return [...conversation.participants];
    return [...(this.subscriptions.get(conversation.channelId)?.keys() ?? [])];
  }

  /** The channels a user is subscribed to. */
  channelsOf(userId: number): ChannelRecord[] {
    return [...this.channels.values()].filter((channel) => this.subscription(channel.id, userId)?.active === true);
  }

  subscription(channelId: number, userId: number): SubscriptionRecord | undefined {
    return this.subscriptions.get(channelId)?.get(userId);
  }

  isSubscribed(channelId: number, userId: number): boolean {
    return this.subscription(channelId, userId)?.active === true;
  }

  /** Adds or replaces a user in the indexes (the caller stores it). */
  indexUser(user: UserRecord): void {
    this.renderingChanged();
    const previous = this.users.get(user.id);
    if (previous) this.byEmail.delete(previous.email.toLowerCase());
    this.users.set(user.id, user);
    this.byEmail.set(user.email.toLowerCase(), user);
  }

  userByEmail(email: string): UserRecord | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  activeUserNamed(lowercased: string): UserRecord | undefined {
    const byName = this.activeUsersByName.get(null, () => activeUsersByName(this.users.values()));
    return byName.get(lowercased);
  }

  /** The user whose API key this is (active or not). */
  userByApiKey(key: string): UserRecord | undefined {
    return this.usersByApiKey.get(null, () => new Map([...this.users.values()].map((user) => [user.apiKey, user]))).get(key);
  }

  /** A user by real e-mail or by the dummy `user{id}@{fakeDomain}` form. */
  userByApiEmail(email: string, fakeDomain: string): UserRecord | undefined {
    const byEmail = this.userByEmail(email);
    if (byEmail) return byEmail;
    const dummy = /^user(\d+)@(.+)$/i.exec(email);
    if (!dummy || dummy[2]!.toLowerCase() !== fakeDomain.toLowerCase()) return undefined;
    return this.users.get(Number(dummy[1]));
  }
}
