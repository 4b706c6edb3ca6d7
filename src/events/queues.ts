// Every event queue of the server: creation at register, delivery of committed events to the
// queues of exactly the users they are for, garbage collection of idle queues, and persistence
// across a graceful restart (as Zulip does; after a crash clients get BAD_EVENT_QUEUE_ID and
// register again).
import { randomBytes } from 'node:crypto';
import type { Metrics } from '../ops/metrics.js';
import { nowSeconds, systemClock, type Clock } from '../clock.js';
import { errors } from '../errors.js';
import { QueueCounts } from './queueCounts.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';
import { EventQueue, type QueueSnapshot } from './queue.js';
import type { RestartEvent } from './catalogue.js';
import { withTopicDisplayName } from './emptyTopicName.js';
import { variantsOf } from './messageVariants.js';
import type { Emitted, QueuedEvent, ZulipEvent } from './types.js';

/** How many event queues one user may hold at once (each tab or device holds one; idle ones are
 * collected after their lifespan). */
export const MAX_QUEUES_PER_USER = 100;
/** How often idle event queues are looked for. */
export const QUEUE_GC_INTERVAL_MS = 60_000;

/** Where a realm's actor publishes its emissions: the server's queues, and in a cluster every other
 * node's too. */
export interface EventSink {
  publish(realmId: number, emitted: readonly Emitted[]): void;
  /** How many emissions of the realm it has taken: the position a register's state is read at. */
  position(realmId: number): number;
  /** Whose positions they are: in a cluster, the epoch of the owner's lease (each new owner counts
   * its own); 0 elsewhere. */
  epoch(realmId: number): number;
}

/** A batch of a realm's emissions heard from its owner (in a cluster, another node): the owner's
 * epoch and the position of the first emission. */
export interface HeardBatch {
  epoch: number;
  from: number;
}

/** Where queues wait across a graceful restart (the store). */
export interface QueueShelf {
  saveQueues(snapshots: readonly QueueSnapshot[]): Promise<void>;
  /** The saved queues, forgotten on disk at once, so that after a later crash they are not
   * resurrected with events missing. */
  takeSavedQueues(): Promise<QueueSnapshot[]>;
}

export type NewQueue = Omit<QueueSnapshot, 'id' | 'events' | 'lastEventId' | 'realmId' | 'userId'>;

/** A queue being registered: the realm's state is read elsewhere (its actor, maybe on another node)
 * while the emissions for the user are kept, so the queue starts exactly after the state. */
export interface Registration {
  /** Opens the queue: it gets the kept emissions published after `position` (the realm's position
   * when its state was read, counted by the owner of `epoch`), then every later one. */
  open(settings: NewQueue, position: number, epoch: number): EventQueue;
  /** Stops keeping emissions (call whether or not the queue was opened). */
  end(): void;
}

interface Kept {
  realmId: number;
  userId: number;
  emissions: { position: number; emitted: Emitted }[];
  /** The last position of emissions this server may lack that were made while the registration was
   * under way (not sent to it, or lost on the way). */
  missedThrough: number;
  allPublicStreams: boolean;
}

/** A new queue's ID: random, with the front that holds it after a dash but for the main one's. */
function queueIdOn(front: number): string {
  const id = randomBytes(12).toString('hex');
  return front === 0 ? id : `${id}-${front}`;
}

/** The front a queue's ID names (the main one: 0). */
export const frontOf = (queueId: string): number => Number(/-(\d+)$/.exec(queueId)?.[1] ?? 0);

export class EventQueues implements EventSink {
  private readonly byId = new Map<string, EventQueue>();
  /** The newest event ID handed out (server-wide sequence, see EventIds). */
  private lastId = -1;
  private readonly nextId = (): number => ++this.lastId;
  /** realmId → userId → that user's queues: fan-out touches only recipients' queues. */
  private readonly byUser = new Map<number, Map<number, Set<EventQueue>>>();
  /** How many emissions each realm has published: the position a register's state is read at. In a
   * cluster, of the realm's epoch here (none yet: no batch of it heard). */
  private readonly positions = new Map<number, number>();
  /** Each realm's epoch here (a cluster's lease epoch, 0 elsewhere): the newest of its owner here,
   * the batches heard, the states registrations were answered with. Every queue of a realm here is
   * of its epoch: one of an earlier owner is dropped once a later one is known. */
  private readonly epochs = new Map<number, number>();
  /** Emissions published but not yet in their queues, in order, each at its realm position: they
   * are delivered on this turn of the event loop's check phase (setImmediate), after the answers
   * of the writes that made them went out, and before any later request is read (a client that
   * reads its queue once it has an answer finds the events of its change there). Whatever reads or
   * opens queues delivers them first. */
  private pending: { realmId: number; emission: Emitted; position: number }[] = [];
  /** Registrations under way, by realm. */
  private readonly registering = new Map<number, Set<Kept>>();
  /** realmId → userId → how many of the user's queues were registered with all_public_streams. */
  private readonly allPublic = new Map<number, Map<number, number>>();
  /** Told whenever a user's holding here may have changed: a registration of theirs began, or ended
   * without opening a queue, or a queue was added or deleted (a cluster tells the realm's owner, the
   * serving thread the realm thread: they count a queue from the start of its registration). */
  onHoldersChanged: ((realmId: number, userId: number) => void) | undefined;
  /** Takes the events published here that wait to be taken (a realm thread's, on several fronts:
   * threads/realmsThread.ts), so a queue read sees every event of a write already answered. */
  catchUp: (() => void) | undefined;

  constructor(
    private readonly shelf: QueueShelf,
    private readonly clock: Clock = systemClock,
    /** Where fan-outs are measured, if anywhere. */
    private readonly metrics?: Metrics,
    /** The front (thread serving clients) these queues are on: the main one but where the realm
     * thread serves several (threads/). Its queues' IDs name it. */
    private readonly front = 0,
    /** How many queues each user holds, here and on the other fronts (threads/). */
    private readonly counts = new QueueCounts(),
    /** Zulip's server_generation: when this server started (seconds), the same on every front
     * (app.ts FrontShares); register returns it and the restart event carries it, so clients can
     * tell they are talking to a new server. */
    readonly serverGeneration = nowSeconds(clock),
  ) {}

  /** Tells every queue the server restarted (Zulip's `restart` event), after queues were restored. */
  announceRestart(): void {
    this.deliverPending();
    if (this.byId.size === 0) return;
    const event: RestartEvent = {
      type: 'restart',
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      server_generation: this.serverGeneration,
    };
    const queued = { id: this.nextId(), event };
    for (const queue of this.byId.values()) queue.deliver(queued);
  }

  /** Starts registering a queue for a user (refused when the user holds too many). */
  begin(realmId: number, userId: number, allPublicStreams = false): Registration {
    this.checkRoom(userId);
    const kept: Kept = { realmId, userId, emissions: [], missedThrough: -1, allPublicStreams };
    let registering = this.registering.get(realmId);
    if (!registering) this.registering.set(realmId, (registering = new Set()));
    registering.add(kept);
    // Told before the realm reads the state, so that it counts the queue from before it exists.
    this.onHoldersChanged?.(realmId, userId);
    let opened = false;
    return {
      open: (settings, position, epoch) => {
        // What is pending goes to the queues there are now; this one gets what is kept for it.
        this.deliverPending();
        // A state from an owner since deposed; one from a new owner starts its epoch here.
        if (epoch < this.epoch(realmId)) throw errors.realmMoved();
        this.newEpoch(realmId, epoch);
        // The queue would lack emissions made after its state that never reached this server.
        if (kept.missedThrough > position) throw errors.realmMoved();
        if (!this.counts.take(userId, MAX_QUEUES_PER_USER)) throw errors.tooManyQueues(MAX_QUEUES_PER_USER);
        const queue = new EventQueue({ ...settings, realmId, userId, id: queueIdOn(this.front) }, this.nextId, this.clock, this.lastId);
        this.add(queue);
        opened = true;
        queue.openedAt = position;
        for (const { position: at, emitted } of kept.emissions) if (at > position) this.deliverer(emitted, at)(queue);
        return queue;
      },
      end: () => {
        registering.delete(kept);
        if (registering.size === 0) this.registering.delete(realmId);
        // Refused by the realm or here (too many queues by the time the state came back).
        if (!opened) this.onHoldersChanged?.(realmId, userId);
      },
    };
  }

  private checkRoom(userId: number): void {
    if (this.counts.held(userId) >= MAX_QUEUES_PER_USER) throw errors.tooManyQueues(MAX_QUEUES_PER_USER);
  }

  /** The realm's position: how many emissions it has published. */
  position(realmId: number): number {
    return this.positions.get(realmId) ?? 0;
  }

  epoch(realmId: number): number {
    return this.epochs.get(realmId) ?? 0;
  }

  /** The realm's emissions come from an owner of a later epoch now (this node, or another it
   * heard of): its queues here start over (they may lack emissions of the earlier owner: their
   * clients register again), and so do its positions and what registrations under way kept. An
   * epoch not later than the realm's here changes nothing. */
  newEpoch(realmId: number, epoch: number): void {
    if (epoch <= this.epoch(realmId)) return;
    this.deliverPending();
    this.epochs.set(realmId, epoch);
    this.positions.delete(realmId);
    this.dropQueuesOpenedBefore(realmId, Number.POSITIVE_INFINITY);
    for (const kept of this.registering.get(realmId) ?? []) {
      kept.emissions = [];
      kept.missedThrough = -1;
    }
  }

  /** Takes a batch of the realm's emissions heard from its owner (in a cluster, another node). One
   * of an earlier epoch than the realm's here is a deposed owner's, and ignored. When it is the
   * first heard of its epoch, or does not follow on from the last (the owner sent none while it
   * knew of no queue here, or a batch was lost), the queues opened before it may lack emissions and
   * are dropped (their clients register again), and registrations whose state is older refused
   * (`passOver`); the others go on. */
  receive(realmId: number, batch: HeardBatch, emissions: readonly Emitted[]): void {
    if (batch.epoch < this.epoch(realmId)) return;
    this.newEpoch(realmId, batch.epoch);
    this.publishFollowing(realmId, emissions, batch.from, this.positions.get(realmId));
  }

  /** Publishes emissions from position `from`, first passing over those before it that this server
   * may lack (`passOver`) when the realm's position here, `known`, is not the one before. A realm
   * thread's positions begin with the process, so a realm not heard of yet is at 0 (its restored
   * queues stay); a cluster owner's do not (`receive`: not heard of, undefined). */
  publishFollowing(realmId: number, emissions: readonly Emitted[], from: number, known: number | undefined = this.position(realmId)): void {
    if (known !== from - 1) this.passOver(realmId, from - 1);
    this.publish(realmId, emissions, from);
  }

  /** The realm's position as its owner of `epoch` (this server) counts it; refused once a later
   * owner is known here (the positions here are that owner's): a registration tries again. */
  ownPosition(realmId: number, epoch: number): number {
    if (this.epoch(realmId) !== epoch) throw errors.realmMoved();
    return this.position(realmId);
  }

  /** Publishes emissions of the realm's owner of `epoch` (this server); answers the position of the
   * first, or undefined once a later owner is known here: they are not taken (what of them was
   * logged is in the later owner's state). */
  publishOwn(realmId: number, epoch: number, emitted: readonly Emitted[]): number | undefined {
    if (this.epoch(realmId) !== epoch) return undefined;
    const from = this.position(realmId) + 1;
    this.publish(realmId, emitted, from);
    return from;
  }

  /** This server may have missed emissions of every realm not `owned` here (in a cluster, its
   * connection to the other nodes broke, and batches sent meanwhile are lost): their queues are
   * dropped (their clients register again), registrations under way refused, and the next batch
   * of each is taken as the first heard. */
  lostTrack(owned: (realmId: number) => boolean): void {
    for (const realmId of new Set([...this.byUser.keys(), ...this.registering.keys(), ...this.positions.keys()])) {
      if (owned(realmId)) continue;
      this.deleteRealmQueues(realmId);
      this.positions.delete(realmId);
    }
  }

  /** The queue, if it exists and belongs to this user; else BAD_EVENT_QUEUE_ID. */
  get(queueId: string, realmId: number, userId: number): EventQueue {
    this.catchUp?.();
    this.deliverPending();
    const queue = this.byId.get(queueId);
    if (!queue || queue.userId !== userId || queue.settings.realmId !== realmId) throw errors.badEventQueueId(queueId);
    return queue;
  }

  delete(queue: EventQueue): void {
    if (!this.byId.delete(queue.id)) return;
    this.counts.release(queue.userId);
    const { realmId, allPublicStreams } = queue.settings;
    this.byUser.get(realmId)?.get(queue.userId)?.delete(queue);
    if (allPublicStreams) this.countAllPublic(realmId, queue.userId, -1);
    queue.consumer?.detach('deleted');
    this.onHoldersChanged?.(realmId, queue.userId);
  }

  /** Drops every queue of a realm (its events stopped following on: the clients register again),
   * and refuses the registrations under way, which may lack the same events. */
  deleteRealmQueues(realmId: number): void {
    this.dropQueuesOpenedBefore(realmId, Number.POSITIVE_INFINITY);
    for (const kept of this.registering.get(realmId) ?? []) kept.missedThrough = Number.POSITIVE_INFINITY;
  }

  /** Drops the realm's queues opened before position `through` (all of them: infinity). */
  private dropQueuesOpenedBefore(realmId: number, through: number): void {
    for (const queues of this.byUser.get(realmId)?.values() ?? []) for (const queue of [...queues]) if (queue.openedAt < through) this.delete(queue);
  }

  /** Drops every queue of a user (deactivation). */
  deleteUserQueues(realmId: number, userId: number): void {
    for (const queue of [...(this.byUser.get(realmId)?.get(userId) ?? [])]) this.delete(queue);
  }

  /** Takes a realm's emissions: each moves the realm's position on by one and is kept for the
   * registrations under way of the users it names at once; it reaches those users' queues when
   * the pending emissions are delivered (`deliverPending`). */
  publish(realmId: number, emitted: readonly Emitted[], from = this.position(realmId) + 1): void {
    const registering = this.registering.get(realmId);
    let position = from - 1;
    for (const emission of emitted) {
      position++;
      if (registering) for (const kept of registering) if (emission.userIds.includes(kept.userId)) kept.emissions.push({ position, emitted: emission });
      if (this.pending.length === 0) setImmediate(() => this.deliverPending());
      this.pending.push({ realmId, emission, position });
    }
    this.positions.set(realmId, position);
  }

  /** Passes over the realm's emissions up to position `through` that this server may lack (in a
   * cluster, the realm's owner knew of no queue here, or a batch was lost): a queue opened before
   * the last of them may have wanted one and is dropped (its client registers again), and a
   * registration under way is refused should its state turn out older. */
  passOver(realmId: number, through: number): void {
    this.deliverPending();
    this.dropQueuesOpenedBefore(realmId, through);
    for (const kept of this.registering.get(realmId) ?? []) kept.missedThrough = Math.max(kept.missedThrough, through);
    this.positions.set(realmId, through);
  }

  /** Puts the pending emissions into the queues of the users each names. */
  deliverPending(): void {
    if (this.pending.length === 0) return;
    const started = performance.now();
    let deliveries = 0;
    for (const { realmId, emission, position } of this.pending.splice(0)) {
      const users = this.byUser.get(realmId);
      if (users) {
        const deliver = this.deliverer(emission, position);
        for (const userId of emission.userIds) for (const queue of users.get(userId) ?? []) if (deliver(queue)) deliveries++;
      }
      for (const userId of emission.closesQueuesOf ?? []) this.deleteUserQueues(realmId, userId);
    }
    this.metrics?.fanout(deliveries, (performance.now() - started) / 1000);
  }

  /** What delivers one emission (at a realm position) to a queue, if the queue wants it and opened
   * before it: one ID for the emission, one shared QueuedEvent per variant. Answers whether the
   * queue got it. */
  private deliverer(emission: Emitted, position: number): (queue: EventQueue) => boolean {
    const { event, message, allPublicStreamsOnly, localEcho, capability } = emission;
    const variantFor = variantsOf(emission);
    const id = this.nextId();
    const variants = new Map<ZulipEvent, QueuedEvent>();
    // Each variant as clients without the empty_topic_name capability get it, made once.
    const withoutEmptyTopic = new Map<ZulipEvent, ZulipEvent>();
    const shownTo = (queue: EventQueue, variant: ZulipEvent): ZulipEvent => {
      if (queue.declares('empty_topic_name')) return variant;
      let shown = withoutEmptyTopic.get(variant);
      if (!shown) withoutEmptyTopic.set(variant, (shown = withTopicDisplayName(variant)));
      return shown;
    };
    return (queue) => {
      if (queue.openedAt >= position) return false;
      if ((allPublicStreamsOnly && !queue.settings.allPublicStreams) || !queue.wants(event, message)) return false;
      if (capability && queue.declares(capability.name) !== capability.declared) return false;
      const variant = shownTo(queue, variantFor(queue.settings));
      if (localEcho?.queueId === queue.id && queue.settings.userId === message?.record.senderId && variant.type === 'message') {
        queue.deliver({ id, event: { ...variant, local_message_id: localEcho.localId } });
        return true;
      }
      let queued = variants.get(variant);
      if (!queued) variants.set(variant, (queued = { id, event: variant }));
      queue.deliver(queued);
      return true;
    };
  }

  /** Whether the user has a registration under way here (`allPublic`: one with all_public_streams). */
  isRegistering(realmId: number, userId: number, allPublic = false): boolean {
    for (const kept of this.registering.get(realmId) ?? []) if (kept.userId === userId && (kept.allPublicStreams || !allPublic)) return true;
    return false;
  }

  /** Whether a user holds an event queue on this server (a client is connected, for notifications). */
  hasQueue(realmId: number, userId: number): boolean {
    return (this.byUser.get(realmId)?.get(userId)?.size ?? 0) > 0;
  }

  /** The users of a realm holding a queue registered with all_public_streams. */
  allPublicStreamsUsers(realmId: number): Iterable<number> {
    return this.allPublic.get(realmId)?.keys() ?? [];
  }

  /** Whether the user holds a queue registered with all_public_streams. */
  hasAllPublicStreams(realmId: number, userId: number): boolean {
    return this.allPublic.get(realmId)?.has(userId) === true;
  }

  /** The realms with queues here (some maybe empty by now). */
  realmIds(): Iterable<number> {
    return this.byUser.keys();
  }

  /** The users of a realm holding a queue here, or registering one. */
  holders(realmId: number): number[] {
    const users = new Set([...(this.byUser.get(realmId) ?? [])].filter(([, queues]) => queues.size > 0).map(([userId]) => userId));
    for (const kept of this.registering.get(realmId) ?? []) users.add(kept.userId);
    return [...users];
  }

  private countAllPublic(realmId: number, userId: number, by: 1 | -1): void {
    let users = this.allPublic.get(realmId);
    if (!users) this.allPublic.set(realmId, (users = new Map()));
    const count = (users.get(userId) ?? 0) + by;
    if (count > 0) users.set(userId, count);
    else users.delete(userId);
  }

  collectGarbage(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const queue of this.byId.values()) {
      if (queue.expired(now)) {
        this.delete(queue);
        dropped++;
      }
    }
    return dropped;
  }

  /** Per realm, the users with a queue a client reads now (a consumer attached). */
  usersOnline(): Map<number, number[]> {
    const online = new Map<number, number[]>();
    for (const [realmId, users] of this.byUser) {
      const reading = [...users].filter(([, queues]) => [...queues].some((queue) => queue.consumer !== null)).map(([userId]) => userId);
      if (reading.length > 0) online.set(realmId, reading);
    }
    return online;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Set once the server is stopping: long-polls answer at once instead of parking. */
  closing = false;

  /** First step of a graceful shutdown: every consumer is let go (long-polls answered, sockets
   * closed); events keep going into the queues until they are persisted. */
  releaseConsumers(): void {
    this.closing = true;
    for (const queue of this.byId.values()) queue.consumer?.detach('shutdown');
  }

  /** Last step of a graceful shutdown, once every write is committed: saves every queue. */
  async persist(): Promise<void> {
    this.deliverPending();
    await this.shelf.saveQueues([...this.byId.values()].map((queue) => queue.snapshot()));
  }

  /** Loads the queues a graceful shutdown saved, and forgets them on disk at once, so that after a
   * later crash they are not resurrected with events missing. */
  async restore(): Promise<void> {
    for (const { events, lastEventId, ...settings } of await this.shelf.takeSavedQueues()) {
      const queue = new EventQueue(settings, this.nextId, this.clock, lastEventId, events);
      this.counts.add(queue.userId);
      this.add(queue);
      this.lastId = Math.max(this.lastId, lastEventId);
    }
  }

  private add(queue: EventQueue): void {
    this.byId.set(queue.id, queue);
    let users = this.byUser.get(queue.settings.realmId);
    if (!users) this.byUser.set(queue.settings.realmId, (users = new Map()));
    let queues = users.get(queue.userId);
    if (!queues) users.set(queue.userId, (queues = new Set()));
    queues.add(queue);
    if (queue.settings.allPublicStreams) this.countAllPublic(queue.settings.realmId, queue.userId, 1);
    this.onHoldersChanged?.(queue.settings.realmId, queue.userId);
  }
}
