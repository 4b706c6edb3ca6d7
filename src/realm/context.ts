// What a command sees while it runs: the realm's state, the store, the clock and the acting user.
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { EventQueues } from '../events/queues.js';
import type { Emitted, ZulipEvent } from '../events/types.js';
import type { Store } from '../store/store.js';
import type { UserRecord } from '../users/records.js';
import type { ChannelRecord, SubscriptionRecord } from '../channels/records.js';
import { fakeEmailDomain, type RealmRecord } from '../organization/records.js';
import type { RealmState } from '../organization/state.js';

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
    this.now = Math.floor(config.clock() / 1000);
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

  /** Stores a user and updates the realm's indexes; call inside a write command. */
  saveUser(user: UserRecord): void {
    this.store.users.put([user.realmId, user.id], user);
    this.state.indexUser(user);
  }

  /** Stores a channel and updates the realm's indexes; call inside a write command. */
  saveChannel(channel: ChannelRecord): void {
    this.store.channels.put([channel.realmId, channel.id], channel);
    this.state.indexChannel(channel);
  }

  /** Stores a subscription and updates the realm's indexes; call inside a write command. */
  saveSubscription(subscription: SubscriptionRecord): void {
    this.store.subscriptions.put([subscription.realmId, subscription.channelId, subscription.userId], subscription);
    this.state.indexSubscription(subscription);
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
