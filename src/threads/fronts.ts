// The realm thread's side of its fronts (the threads that serve clients). What it sends them goes
// at the end of each turn of its event loop (one post to a front; with several fronts, two to each
// of those with both emissions and answers but one): the realms' emissions of the turn to every
// front first — for several fronts encoded once with V8's serializer (a port's structured copy
// walks the objects again for each port) — then what is for one front alone (answers, metrics).
// The answers of a commit thus follow its events on every front, so a front writes them before it
// delivers the events to its queues (queues.ts), as one thread does, and a client answered anywhere
// finds the events wherever it reads. (V8's serializer has a fixed cost per use: it runs once a
// turn, not per publish; ARCHITECTURE.md has the measurements.)
//
// What cannot be copied (a bug) is logged and replaced, in its place, by what can be: a reply by an
// internal error (the client's request fails, as a command failing here does); a realm's emissions
// by none, at the position after them, so that every front drops the realm's queues that may have
// wanted them (emissions that do not follow on, realmsThread.ts) and their clients register again,
// rather than miss events; metrics and figures are dropped (logged).
import { serialize } from 'node:v8';
import type { MessagePort } from 'node:worker_threads';
import type { Logger } from '../ops/log.js';
import { HolderSet, type Holding } from '../events/holders.js';
import { postBatch } from './batchedPort.js';
import type { FromRealmThread, Published } from './protocol.js';

/** A thread that serves clients, as the realm thread reaches it. */
export class Front {
  /** realmId → the users it told hold queues there. */
  readonly holders = new Map<number, HolderSet>();
  /** What goes to it alone at the end of the turn. */
  readonly pending: FromRealmThread[] = [];

  constructor(
    /** Its place among the fronts: the first is the main thread's. */
    readonly index: number,
    readonly port: MessagePort,
  ) {}

  /** How users' queues changed there. */
  told(realmId: number, users: readonly [userId: number, holding: Holding][]): void {
    let set = this.holders.get(realmId);
    if (!set) this.holders.set(realmId, (set = new HolderSet()));
    set.tell(users);
  }
}

/** Emissions passed over: none, at the position after them (their realm's queues are dropped where
 * they do not follow on). */
const passedOver = ({ realmId, from, emissions }: Published): Published => ({ realmId, from: from + emissions.length, emissions: [] });

export class FrontsOutbox {
  private published: Published[] = [];
  private scheduled = false;

  constructor(
    readonly fronts: readonly Front[],
    private readonly log: Logger,
  ) {}

  /** A realm's emissions, for every front. */
  publish(published: Published): void {
    this.published.push(published);
    this.schedule();
  }

  /** A message for one front. */
  post(front: Front, message: FromRealmThread): void {
    front.pending.push(message);
    this.schedule();
  }

  /** A turn's emissions as posted: encoded once when several fronts take them, else as they are
   * (with one front, encoding cost more than the port's structured copy: ARCHITECTURE.md). */
  private events(published: Published[]): FromRealmThread {
    if (this.fronts.length === 1) return { kind: 'events', published };
    try {
      return { kind: 'events', encoded: serialize(published) };
    } catch {
      return { kind: 'events', encoded: this.sendCopyable(published, serialize) };
    }
  }

  /** Sends the emissions as they can be copied: those of a realm that cannot be copied passed over
   * (`copyable`), and should the whole still fail (the copy's depth differs a little from the
   * check's), every realm's passed over. */
  private sendCopyable<T>(published: Published[], send: (published: Published[]) => T): T {
    try {
      return send(published.map((one) => this.copyable(one)));
    } catch (error) {
      this.log.error({ err: error }, "a turn's emissions could not be copied to the fronts: every realm's of them is passed over");
      return send(published.map(passedOver));
    }
  }

  /** A realm's emissions, or (when they cannot be copied) them passed over. */
  private copyable(published: Published): Published {
    try {
      serialize(published);
      return published;
    } catch (error) {
      this.log.error({ err: error, realm: published.realmId, from: published.from }, "a realm's emissions could not be copied to its fronts: its queues are dropped");
      return passedOver(published);
    }
  }

  /** Posts to the front what replaces a message that could not be copied to it. */
  private refused(front: Front, message: FromRealmThread, error: unknown): void {
    if (message.kind === 'events' && 'published' in message) return this.sendCopyable(message.published, (published) => front.port.postMessage([{ kind: 'events', published }]));
    this.log.error({ err: error, kind: message.kind, front: front.index }, 'a message could not be copied to a front');
    if (message.kind === 'reply') front.port.postMessage([{ kind: 'reply', seq: message.seq, reply: { error: null } }]);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const events = this.published.length > 0 ? this.events(this.published.splice(0)) : undefined;
    // Every front has the turn's events before any front gets an answer: a client answered through
    // one front may read its queue on another at once (which takes what waits on its port first,
    // realmsThread.ts). One front with answers takes its events with them, in one post, once every
    // other front has its events and before any other front's answers.
    const carrier = this.fronts.find((front) => front.pending.length > 0) ?? this.fronts[0]!;
    if (events) for (const front of this.fronts) if (front !== carrier) front.port.postMessage([events]);
    for (const front of [carrier, ...this.fronts.filter((other) => other !== carrier)]) {
      const own = front.pending.splice(0);
      const batch = events && front === carrier ? [events, ...own] : own;
      if (batch.length > 0) postBatch(front.port, batch, (message, error) => this.refused(front, message, error));
    }
  }
}
