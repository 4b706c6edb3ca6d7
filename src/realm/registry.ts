// All realms of the server: finds the realm a request's Host header names, activates its actor on
// first use, and creates new realms. Loading reads LMDB synchronously, so two requests for the
// same realm can never race to load it twice.
import { BYTES_PER_KEPT_CHARACTER, keptJson } from '../organization/keptJson.js';
import type { Config } from '../config.js';
import type { EventSink } from '../events/queues.js';
import type { QueueHolders } from './links.js';
import type { RealmOverview } from '../ops/metrics.js';
import { groupPermissions, systemGroupOrder, systemGroups, type GroupPermission, type GroupRecord, type GroupSetting, type SystemGroupName } from '../groups/records.js';
import type { Store } from '../store/store.js';
import type { FileStorage } from '../files/storage.js';
import { isPendingExport } from '../organization/exports.js';
import { RealmActor, type RealmLinks } from './actor.js';
import type { RealmDirectory, RealmHandle } from './handle.js';
import type { RealmLog } from './log.js';
import { defaultEditSettings, type RealmRecord } from '../organization/records.js';
import { nowSeconds } from '../clock.js';

export interface NewRealm {
  subdomain: string;
  name: string;
  description?: string;
}

const DEFAULT_REALM_KEY = 'defaultRealm';
const subdomainPattern = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)?$/;

export class InvalidRealmError extends Error {}

/** What makes new realms: a standalone server's Realms, or a cluster node. */
export interface RealmCreator {
  create(input: NewRealm): Promise<RealmHandle>;
}

/** What finds realms by subdomain and makes new ones in this process: a standalone server's
 * Realms, or those of every shard (shards.ts, the management CLI). */
export interface RealmsHere {
  bySubdomainName(subdomain: string): RealmActor | undefined;
  create(input: NewRealm): Promise<RealmActor>;
}

/** How a realm is created in a cluster: its ID and the cluster ties of its actor. */
export interface Placement {
  id: number;
  links: RealmLinks;
}

export interface RealmsOptions {
  /** Where committed writes go besides LMDB (a cluster's log), if anywhere. */
  log?: RealmLog;
  /** Standalone (true, the default), every realm of the store is this server's, activated on
   * first use; in a cluster only those the node owns are activated, by the node. */
  activateOnUse?: boolean;
  /** Where data exports are stored (the management CLI has none). */
  files?: FileStorage;
  /** Told when a realm's memory changed (RealmLinks.memoryChanged). */
  memoryChanged?: (realmId: number) => void;
}

export class Realms implements RealmDirectory, RealmCreator, RealmsHere {
  private readonly actors = new Map<number, RealmActor>();
  private readonly bySubdomain = new Map<string, number>();
  private defaultRealmId: number | undefined;
  private readonly externalHostname: string;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    /** This server's queues, or what stands for them on the realm thread (RealmActor's `local`). */
    private readonly local: EventSink & QueueHolders,
    private readonly options: RealmsOptions = {},
  ) {
    this.externalHostname = hostname(config.externalHost);
    keptJson.limit = (config.keptJsonMb * 2 ** 20) / BYTES_PER_KEPT_CHARACTER;
    for (const { value } of store.realms.getRange()) this.bySubdomain.set(value.subdomain, value.id);
  }

  /** Activates every realm with scheduled messages, so each delivers them at their time (or, when
   * the server was down then, now: late ones fail, as Zulip does), and every realm with
   * notifications or outgoing webhooks waiting to be sent. */
  activateScheduled(): void {
    for (const id of this.store.scheduledMessages.realmIds()) this.byId(id);
    for (const id of this.store.notificationOutbox.realmIds()) this.byId(id);
    for (const id of this.store.serviceOutbox.realmIds()) this.byId(id);
    for (const id of this.store.emailBatches.realmIds()) this.byId(id);
    for (const id of this.store.realmExports.realmIds()) if ([...this.store.realmExports.ofRealm(id)].some(isPendingExport)) this.byId(id);
  }

  /** Stops every realm's timers (shutdown); resolves once the notifications in flight are
   * recorded, and accepted writes and every realm's presence are durable. */
  async stop(): Promise<void> {
    for (const actor of this.actors.values()) actor.stopTimers();
    await Promise.all([...this.actors.values()].map((actor) => actor.notificationsSettled()));
    await this.idle();
    await Promise.all([...this.actors.values()].map((actor) => actor.savePresence()));
  }

  get isEmpty(): boolean {
    return this.bySubdomain.size === 0;
  }

  /** The realm for a Host header: its subdomain of the external host, else the default realm. */
  forHost(host: string): RealmActor | undefined {
    const id = realmIdForHost(host, this.externalHostname, this.bySubdomain, () => this.defaultRealm());
    return id === undefined ? undefined : this.byId(id);
  }

  /** Every realm by subdomain, and the default realm: what finds a realm for a Host header. */
  directory(): { realms: [id: number, subdomain: string][]; defaultRealm: number | undefined } {
    return { realms: [...this.bySubdomain].map(([subdomain, id]) => [id, subdomain]), defaultRealm: this.defaultRealm() };
  }

  /** The realm served when the Host header names none: the first created. Once set it never
   * changes, so it is read from LMDB only until it is found. */
  private defaultRealm(): number | undefined {
    return (this.defaultRealmId ??= this.store.meta.get(DEFAULT_REALM_KEY));
  }

  bySubdomainName(subdomain: string): RealmActor | undefined {
    const id = this.bySubdomain.get(subdomain);
    return id === undefined ? undefined : this.byId(id);
  }

  async create(input: NewRealm, placement?: Placement): Promise<RealmActor> {
    if (!subdomainPattern.test(input.subdomain)) throw new InvalidRealmError(`invalid subdomain '${input.subdomain}'`);
    if (this.bySubdomain.has(input.subdomain)) throw new InvalidRealmError(`a realm with subdomain '${input.subdomain}' exists`);
    const links = placement?.links ?? { log: this.options.log };
    if (placement && links.ids && !links.ids.ready(placement.id)) await links.ids.topUp(placement.id);
    const { result: realm, changes } = await this.store.recordedWrite(() => {
      const id = placement?.id ?? this.store.nextId('realm');
      const now = nowSeconds(this.config.clock);
      const groups = createSystemGroups(this.store, id, now);
      const record: RealmRecord = {
        id,
        subdomain: input.subdomain,
        name: input.name,
        description: input.description ?? '',
        dateCreated: now,
        deactivated: false,
        enableSpectatorAccess: false,
        topicsPolicy: 'allow_empty_topic',
        permissions: {
          can_add_subscribers_group: groups.get('role:members')!,
          can_create_public_channel_group: groups.get('role:members')!,
          can_create_private_channel_group: groups.get('role:members')!,
          can_create_web_public_channel_group: groups.get('role:owners')!,
          can_move_messages_between_topics_group: groups.get('role:everyone')!,
          can_move_messages_between_channels_group: groups.get('role:members')!,
        },
        defaultChannelIds: [],
        newChannelAnnouncementsChannelId: null,
        notificationBotId: null,
        editHistoryVisible: true,
        messageEditing: defaultEditSettings,
      };
      this.store.realms.put(record.id, record);
      if (this.store.meta.get(DEFAULT_REALM_KEY) === undefined) this.store.meta.put(DEFAULT_REALM_KEY, record.id);
      return record;
    }, { ids: placement && links.ids?.sourceFor(placement.id) });
    await links.log?.append(realm.id, changes);
    this.bySubdomain.set(realm.subdomain, realm.id);
    const actor = this.activate(realm, links);
    await actor.ask('realm.bootstrap', null, {});
    return actor;
  }

  /** Every realm of the store, and whether its actor runs here. */
  overview(): RealmOverview[] {
    return [...this.bySubdomain].map(([subdomain, id]) => ({ id, subdomain, loaded: this.actors.has(id) })).sort((a, b) => a.id - b.id);
  }

  /** How many realms have an actor here. */
  get loaded(): number {
    return this.actors.size;
  }

  /** The commands waiting in the mailboxes of the realms here. */
  waiting(): number {
    let waiting = 0;
    for (const actor of this.actors.values()) waiting += actor.waiting;
    return waiting;
  }

  /** Resolves once every realm's accepted writes are durable. */
  async idle(): Promise<void> {
    await Promise.all([...this.actors.values()].map((actor) => actor.idle()));
  }

  /** The realm's actor, activated on first use (standalone). */
  byId(id: number): RealmActor | undefined {
    const record = this.actors.has(id) || this.options.activateOnUse === false ? undefined : this.store.realms.get(id);
    return this.actors.get(id) ?? (record && this.activate(record, { log: this.options.log }));
  }

  /** Starts the realm's actor on what the store holds of it. */
  activate(record: RealmRecord, links: RealmLinks): RealmActor {
    const { files, memoryChanged } = this.options;
    const actor = new RealmActor(this.store, this.config, this.local, record, { files, memoryChanged: memoryChanged && (() => memoryChanged(record.id)), ...links });
    this.actors.set(record.id, actor);
    this.bySubdomain.set(record.subdomain, record.id);
    return actor;
  }

  /** Stops a realm's actor (the realm left this node): what is in its mailbox is refused. */
  retire(id: number): void {
    this.actors.get(id)?.retire();
    this.actors.delete(id);
  }

  /** The realm's actor, if it is active here. */
  active(id: number): RealmActor | undefined {
    return this.actors.get(id);
  }
}

/** Zulip's system groups for a new realm, nested as Zulip nests them; returns name → ID. Nobody
 * manages, joins or leaves a system group; everyone may mention one. */
function createSystemGroups(store: Store, realmId: number, now: number): Map<SystemGroupName, number> {
  const ids = new Map<SystemGroupName, number>(systemGroupOrder.map((name) => [name, store.nextId('group')]));
  const nobody = ids.get('role:nobody')!;
  for (const name of systemGroupOrder) {
    const shape = systemGroups[name];
    const permissions = Object.fromEntries(groupPermissions.map((permission) => [permission, nobody])) as Record<GroupPermission, GroupSetting>;
    permissions.can_mention_group = ids.get('role:everyone')!;
    const group: GroupRecord = {
      id: ids.get(name)!,
      realmId,
      name,
      description: shape.description,
      isSystemGroup: true,
      members: [],
      subgroups: shape.subgroup === null ? [] : [ids.get(shape.subgroup)!],
      deactivated: false,
      creatorId: null,
      dateCreated: now,
      permissions,
    };
    store.groups.put(group);
  }
  return ids;
}

/** The default realm of a server whose realms are in several shards: the first created, the lowest
 * of the shards' defaults (IDs only grow). */
export function firstCreated(defaults: readonly (number | undefined)[]): number | undefined {
  const ids = defaults.filter((id) => id !== undefined);
  return ids.length > 0 ? Math.min(...ids) : undefined;
}

export const hostname = (host: string): string => host.toLowerCase().replace(/:\d+$/, '');

/** The realm a Host header names: its subdomain of the external host, else the default realm. */
export function realmIdForHost(host: string, externalHostname: string, bySubdomain: ReadonlyMap<string, number>, defaultRealm: () => number | undefined): number | undefined {
  const subdomain = subdomainOf(host, externalHostname);
  return (subdomain === undefined ? undefined : bySubdomain.get(subdomain)) ?? defaultRealm();
}

/** The subdomain a Host header names under the external host ('' for the host itself), if any. */
export function subdomainOf(host: string, externalHostname: string): string | undefined {
  const name = hostname(host);
  if (name === externalHostname) return '';
  return name.endsWith(`.${externalHostname}`) ? name.slice(0, -externalHostname.length - 1) : undefined;
}
