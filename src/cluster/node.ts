// A node of a cluster: a gateway for every realm (HTTP, WebSocket and event queues of its clients)
// and the owner of some. It keeps the realm directory and the leases in view, takes the realms
// placement gives it (rendezvous hashing over live nodes; pinned realms first), rebuilds each from
// its log before serving it, answers its commands from other nodes, and hands its realms over when
// it drains.
import { createHash } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import type { ClusterSettings, Config } from '../config.js';
import type { Logger } from '../ops/log.js';
import type { RealmOverview } from '../ops/metrics.js';
import type { EventQueues } from '../events/queues.js';
import type { RealmDirectory, RealmHandle } from '../realm/handle.js';
import { hostname, InvalidRealmError, realmIdForHost, type NewRealm, type RealmCreator, type Realms } from '../realm/registry.js';
import { realmRows } from '../store/realmData.js';
import type { Store } from '../store/store.js';
import { serveAdmin } from './admin.js';
import { JetStreamAppends } from './appends.js';
import { serveCommands, type CommandService } from './commandServer.js';
import { openCluster, type Cluster } from './connection.js';
import { EventBus } from './events.js';
import { ClusterHolders } from './holders.js';
import { IdBlocks } from './ids.js';
import { Leases, type TakenLease } from './leases.js';
import { presenceKeeper } from './presence.js';
import { KeptPrincipals } from './principals.js';
import { ClusterLog } from './log.js';
import { CommandSender, RemoteRealm } from './remote.js';
import { snapshotDue, Snapshots } from './snapshots.js';
import { kvCodec, Watched } from './watched.js';

/** A realm of the directory (`parley_realms`, keyed by realm ID). */
interface DirectoryEntry {
  subdomain: string;
}

/** The directory's keys of realms (their IDs), beside 'next' and the seeding claim. */
const isRealmKey = (key: string): boolean => /^\d+$/.test(key);

function lowest(ids: Iterable<number>): number | undefined {
  let found: number | undefined;
  for (const id of ids) if (found === undefined || id < found) found = id;
  return found;
}

/** A realm's commands answered by a node taking it over: by its actor once it `serve`s, or as not
 * run should it `abandon` the realm. */
interface Serving {
  commands: CommandService;
  serve(actor: RealmHandle): void;
  abandon(): void;
}

interface NodeBeat {
  node: string;
  beat: number;
}

/** The one realm ID that stands for the whole server when IDs are taken (realm IDs themselves). */
const SERVER_SCOPE = 0;
const SEEDING_KEY = 'seeding';

const nodeKey = (nodeId: string): string => Buffer.from(nodeId).toString('hex');
const rank = (nodeId: string, realmId: number): string => createHash('sha256').update(`${nodeId}/${realmId}`).digest('hex');

export class ClusterNode implements RealmDirectory, RealmCreator {
  private readonly directory: Watched<DirectoryEntry>;
  private readonly nodes: Watched<NodeBeat>;
  private readonly leases: Leases;
  private readonly log: ClusterLog;
  private readonly bus: EventBus;
  private readonly holders: ClusterHolders;
  private readonly ids: IdBlocks;
  /** Commands this node asks of realms owned elsewhere, and the credentials it accepted for them. */
  private readonly sender: CommandSender;
  private readonly principals: KeptPrincipals;
  private readonly snapshots: Snapshots;
  /** Realms whose snapshot is being written. */
  private readonly snapshotting = new Set<number>();
  /** The size of the newest snapshot of each realm this node owns, in bytes (0: none yet). */
  private readonly snapshotBytes = new Map<number, number>();
  private readonly owned = new Map<number, { commands: CommandService }>();
  /** The realms this node is taking (`acquire` under way). */
  private readonly acquiring = new Map<number, Promise<void>>();
  /** The realms this node is making (`create` under way). */
  private readonly creating = new Set<Promise<RealmHandle>>();
  /** The directory's realm of each subdomain (each request finds its realm here), every realm of
   * each, and each realm's subdomain. */
  private readonly bySubdomain = new Map<string, number>();
  private readonly realmsOf = new Map<string, Set<number>>();
  private readonly subdomains = new Map<number, string>();
  private readonly externalHostname: string;
  private beat = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Requests to make a realm (the management CLI), answered by one node of the cluster. */
  private admin: Subscription | undefined;
  private draining = false;
  /** The server's log (`log` is the realms' log on JetStream). */
  private readonly logger: Logger;

  private constructor(
    private readonly cluster: Cluster,
    private readonly settings: ClusterSettings,
    config: Config,
    private readonly store: Store,
    private readonly queues: EventQueues,
    private readonly realms: Realms,
  ) {
    this.externalHostname = hostname(config.externalHost);
    this.logger = config.log;
    this.directory = new Watched(cluster.realms, (key, entry) => {
      if (isRealmKey(key)) this.index(Number(key), entry);
      this.place();
    });
    this.nodes = new Watched(cluster.nodes);
    this.leases = new Leases(
      cluster,
      settings.nodeId,
      settings.leaseMs,
      (realmId) => this.lose(realmId),
      (realmId, lease) => {
        this.sender.ownerChanged(realmId, lease);
        this.principals.leaseChanged(realmId);
        this.place();
      },
    );
    this.log = new ClusterLog(
      cluster,
      new JetStreamAppends(cluster),
      (realmId) => this.lose(realmId),
      (realmId, since) => {
        if (snapshotDue(since, this.snapshotBytes.get(realmId) ?? 0, settings.snapshotEvery, settings.snapshotGrowth)) void this.snapshot(realmId);
      },
    );
    this.snapshots = new Snapshots(cluster, store);
    this.holders = new ClusterHolders(cluster, settings.nodeId, queues);
    this.bus = new EventBus(
      cluster,
      queues,
      (realmId) => this.holders.heldElsewhere(realmId),
      (realmId) => this.owned.has(realmId),
      this.logger,
    );
    this.ids = new IdBlocks(cluster.ids);
    this.sender = new CommandSender(cluster, (realmId) => this.leases.epochOf(realmId));
    this.principals = new KeptPrincipals(
      cluster,
      (realmId) => this.leases.epochOf(realmId),
      () => this.owned.keys(),
    );
  }

  static async start(settings: ClusterSettings, config: Config, store: Store, queues: EventQueues, realms: Realms): Promise<ClusterNode> {
    const node = new ClusterNode(await openCluster(settings, config.log), settings, config, store, queues, realms);
    await Promise.all([node.directory.start(), node.nodes.start(), node.leases.start()]);
    node.bus.start();
    node.holders.start();
    node.admin = serveAdmin(node.cluster, node, config.log);
    await node.heartbeat();
    node.timer = setInterval(() => void node.tick(), Math.max(50, Math.floor(settings.leaseMs / 4)));
    return node;
  }

  /** Keeps the subdomain index as the directory is: the realm `id` now has `entry` (undefined: gone). */
  private index(id: number, entry: DirectoryEntry | undefined): void {
    const before = this.subdomains.get(id);
    this.subdomains.delete(id);
    if (before !== undefined) this.realmsOf.get(before)?.delete(id);
    if (entry) {
      this.subdomains.set(id, entry.subdomain);
      this.realmsOf.set(entry.subdomain, (this.realmsOf.get(entry.subdomain) ?? new Set()).add(id));
    }
    // Should two creations at once have given a subdomain twice, its realm is the lowest ID.
    for (const subdomain of [before, entry?.subdomain]) {
      if (subdomain === undefined) continue;
      const first = lowest(this.realmsOf.get(subdomain) ?? []);
      if (first === undefined) {
        this.realmsOf.delete(subdomain);
        this.bySubdomain.delete(subdomain);
      } else this.bySubdomain.set(subdomain, first);
    }
  }

  /** The realms of the directory, by ID. */
  private *realmIds(): Generator<[number, DirectoryEntry]> {
    for (const [key, { value }] of this.directory) if (isRealmKey(key)) yield [Number(key), value];
  }

  /** The nodes whose heartbeat is fresh. */
  private liveNodes(): string[] {
    return [...this.nodes].filter(([key]) => this.nodes.fresh(key, this.settings.leaseMs)).map(([, { value }]) => value.node);
  }

  /** The live nodes, and every realm of the directory with the node its lease names. */
  overview(): { nodes: string[]; realms: RealmOverview[] } {
    const nodes = this.liveNodes();
    const realms = [...this.realmIds()].map(([id, entry]) => ({ id, subdomain: entry.subdomain, loaded: this.realms.active(id) !== undefined, owner: this.leases.ownerOf(id) ?? null }));
    return { nodes: nodes.sort(), realms: realms.sort((a, b) => a.id - b.id) };
  }

  /** The realm of the host's subdomain; else the realm without one; else the first realm. */
  forHost(host: string): RealmHandle | undefined {
    const id = realmIdForHost(host, this.externalHostname, this.bySubdomain, () => this.bySubdomain.get('') ?? lowest(this.subdomains.keys()));
    const entry = id === undefined ? undefined : this.directory.get(String(id))?.value;
    if (id === undefined || !entry) return undefined;
    return this.realms.active(id) ?? new RemoteRealm(this.sender, { id, subdomain: entry.subdomain }, () => this.realms.active(id), this.principals);
  }

  /** Creates a realm owned by this node and adds it to the directory (a drain that begins
   * meanwhile hands it over once made; once one has begun, none is made here). */
  create(input: NewRealm): Promise<RealmHandle> {
    if (this.draining) return Promise.reject(new Error('this node is handing its realms over: ask another'));
    const creating = this.createRealm(input);
    this.creating.add(creating);
    // The caller learns of a refusal; this copy of the promise only forgets it.
    void creating.finally(() => this.creating.delete(creating)).catch(() => undefined);
    return creating;
  }

  private async createRealm(input: NewRealm): Promise<RealmHandle> {
    if (this.bySubdomain.has(input.subdomain)) throw new InvalidRealmError(`a realm with subdomain '${input.subdomain}' exists`);
    await this.ids.topUp(SERVER_SCOPE);
    const id = this.ids.sourceFor(SERVER_SCOPE).next('realm');
    const lease = await this.leases.take(id);
    if (lease === undefined) throw new Error(`realm ${id}'s lease is held elsewhere`);
    const { epoch } = lease;
    let actor: RealmHandle;
    try {
      await this.store.setLogPosition(id, { seq: 0, clean: false });
      this.log.own(id, 0);
      const links = { log: this.log, sink: this.bus.sinkFor(id, epoch), ids: this.ids, presence: await presenceKeeper(this.cluster.presence, id), holders: this.holders.serve(id), memoryChanged: () => this.principals.changed(id) };
      actor = await this.realms.create(input, { id, links });
    } catch (error) {
      // Not made: nothing is kept of it here, nor its lease (renewed, it would stand for nobody).
      this.holders.unserve(id);
      await this.log.release(id);
      await this.leases.release(id);
      throw error;
    }
    this.owned.set(id, { commands: serveCommands(this.cluster, id, lease, actor, this.bus) });
    await this.cluster.realms.create(String(id), kvCodec.pack({ subdomain: input.subdomain } satisfies DirectoryEntry));
    return actor;
  }

  /** Runs `seed` on exactly one node of a new cluster (the first to claim it); resolves once the
   * directory has a realm, whichever node made it. */
  async seedOnce(seed: (creator: RealmCreator) => Promise<void>): Promise<void> {
    if ([...this.realmIds()].length > 0) return;
    const claimed = await this.cluster.realms.create(SEEDING_KEY, kvCodec.pack(this.settings.nodeId)).then(
      () => true,
      () => false,
    );
    if (claimed) return seed(this);
    while ([...this.realmIds()].length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private async tick(): Promise<void> {
    await Promise.all([this.leases.renew(), this.heartbeat()]).catch((error: unknown) => this.logger.error({ err: error }, 'cluster: renewing leases failed'));
    this.holders.prune(this.liveNodes());
    this.bus.tellPositions();
    this.place();
  }

  private async heartbeat(): Promise<void> {
    await this.cluster.nodes.put(nodeKey(this.settings.nodeId), kvCodec.pack({ node: this.settings.nodeId, beat: this.beat++ } satisfies NodeBeat));
  }

  /** Takes the realms that have no live owner and that placement gives this node. */
  private place(): void {
    if (this.draining) return;
    const live = this.liveNodes();
    if (!live.includes(this.settings.nodeId)) live.push(this.settings.nodeId);
    for (const [realmId, entry] of this.realmIds()) {
      if (this.owned.has(realmId) || this.acquiring.has(realmId) || this.leases.ownerOf(realmId) !== undefined) continue;
      const pinnedHere = this.settings.pinned.includes(entry.subdomain);
      const preferred = live.reduce((best, node) => (rank(node, realmId) > rank(best, realmId) ? node : best));
      if (pinnedHere || preferred === this.settings.nodeId) this.acquiring.set(realmId, this.acquire(realmId).finally(() => this.acquiring.delete(realmId)));
    }
  }

  /** Takes the realm's lease, brings this node's copy up to the log, and starts serving it. */
  private async acquire(realmId: number): Promise<void> {
    let served: Serving | undefined;
    try {
      const lease = await this.leases.take(realmId);
      if (lease === undefined) return;
      if (this.draining) return await this.leases.release(realmId);
      const { epoch } = lease;
      served = this.serveOnceActive(realmId, lease);
      const local = this.store.logPosition(realmId);
      const [last, snapshot] = await Promise.all([this.log.lastSeq(realmId), this.snapshots.latest(realmId)]);
      // This node's copy serves if it is clean, not ahead of the log, and not behind a trimmed log.
      const usable = local?.clean === true && local.seq <= last && (snapshot === undefined || local.seq >= snapshot.seq);
      let from = usable ? local.seq : 0;
      if (!usable) {
        await this.store.applyChanges([...realmRows(this.store, realmId, { form: 'stored' })].map(([table, key]) => [table, key]));
        if (snapshot !== undefined) from = await this.snapshots.restore(realmId);
      }
      await this.store.setLogPosition(realmId, { seq: from, clean: false });
      from = await this.log.read(realmId, from, (changes, form) => this.store.applyChanges(changes, { reindex: true, form }));
      const presence = await presenceKeeper(this.cluster.presence, realmId);
      const record = this.store.realms.get(realmId);
      // A drain that began meanwhile: given up before serving, rather than served only to hand over.
      if (!record || this.takenOver(realmId, epoch) || this.draining) {
        await this.leases.release(realmId);
        return;
      }
      this.log.own(realmId, from);
      await this.log.fence(realmId);
      // The fence may have taken long enough (JetStream recovering) for the lease to go elsewhere.
      if (this.takenOver(realmId, epoch)) throw new Error(`realm ${realmId} was taken over while its log was fenced`);
      this.snapshotBytes.set(realmId, snapshot?.bytes ?? 0);
      // Events from before this epoch may never have reached this node's queues: they start over.
      const actor = this.realms.activate(record, { log: this.log, sink: this.bus.sinkFor(realmId, epoch), ids: this.ids, presence, holders: this.holders.serve(realmId), memoryChanged: () => this.principals.changed(realmId) });
      this.owned.set(realmId, { commands: served.commands });
      served.serve(actor);
      served = undefined;
      this.sender.servedHere(realmId, epoch);
      // Credentials other nodes kept stand until a change they may not have heard of (the owner
      // before may have died between a change and telling it).
      void this.principals.changed(realmId);
    } catch (error) {
      this.logger.error({ err: error, realm: realmId }, 'cluster: taking the realm failed');
      await this.log.release(realmId);
      await this.leases.release(realmId);
    } finally {
      served?.abandon();
    }
  }

  /** Answers the realm's commands from now on, as its owner under `lease`, once the actor `serve`
   * is given is active; those asked meanwhile are answered as not run should the realm be
   * `abandon`ed. */
  private serveOnceActive(realmId: number, lease: TakenLease): Serving {
    let serve!: (actor: RealmHandle) => void;
    let refuse!: (reason: Error) => void;
    const active = new Promise<RealmHandle>((resolve, reject) => {
      serve = resolve;
      refuse = reject;
    });
    // Refused with no request waiting, it is nobody's failure.
    active.catch(() => undefined);
    const commands = serveCommands(this.cluster, realmId, lease, active, this.bus);
    return {
      commands,
      serve,
      abandon: () => {
        refuse(new Error(`realm ${realmId} was not taken`));
        // What came meanwhile is answered (as not run) before the subscription ends.
        commands.drain().catch(() => commands.unsubscribe());
      },
    };
  }

  /** Whether a realm this node is taking under `epoch` went to another node meanwhile: its lease
   * lost, or a later owner heard of here. */
  private takenOver(realmId: number, epoch: number): boolean {
    return !this.leases.holds(realmId) || this.queues.epoch(realmId) > epoch;
  }

  /** Snapshots a realm this node owns: the rows of a quiet point, written while writes go on. */
  private async snapshot(realmId: number): Promise<void> {
    const actor = this.realms.active(realmId);
    if (!actor || this.snapshotting.has(realmId)) return;
    this.snapshotting.add(realmId);
    try {
      const point = await actor.atQuietPoint(() => ({ transaction: this.store.env.useReadTransaction(), seq: this.log.snapshotPoint(realmId) }));
      try {
        if (point.seq !== undefined) this.snapshotBytes.set(realmId, await this.snapshots.take(realmId, point.seq, point.transaction));
      } finally {
        point.transaction.done();
      }
    } catch (error) {
      this.logger.error({ err: error, realm: realmId }, 'cluster: snapshot failed');
    } finally {
      this.snapshotting.delete(realmId);
    }
  }

  /** The realm is no longer this node's (its lease or its log went to another node). Its copy here
   * stays marked unclean, so it is rebuilt should the realm come back. */
  private lose(realmId: number): void {
    const owned = this.owned.get(realmId);
    if (!owned) return;
    this.owned.delete(realmId);
    owned.commands.unsubscribe();
    this.holders.unserve(realmId);
    this.realms.retire(realmId);
    this.ids.forget(realmId);
    this.snapshotBytes.delete(realmId);
    void this.log.release(realmId);
    // Given up too when the log failed for another reason: another node may serve it at once.
    void this.leases.release(realmId);
    this.logger.warn({ node: this.settings.nodeId, realm: realmId }, 'cluster: this node lost the realm');
  }

  /** Hands every realm this node owns over: no new command is taken, those under way finish and
   * reach the log, the copy is marked clean and the lease given up, for another node to take. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.admin?.drain();
    // A realm being taken when the drain began is given up where its taking stands (its lease
    // released), or handed over with the others once it serves; one being made, once made.
    await Promise.allSettled([...this.acquiring.values(), ...this.creating]);
    await Promise.all(
      [...this.owned].map(async ([realmId, { commands }]) => {
        await commands.drain();
        await this.realms.active(realmId)?.idle();
        this.owned.delete(realmId);
        this.holders.unserve(realmId);
        this.realms.retire(realmId);
        const seq = await this.log.release(realmId);
        if (seq !== undefined) await this.store.setLogPosition(realmId, { seq, clean: true });
        await this.leases.release(realmId);
      }),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.bus.stop();
    this.holders.stop();
    this.directory.close();
    this.nodes.close();
    this.leases.table.close();
    await this.cluster.nc.drain();
  }
}
