// The realm thread's side of its fronts (the threads that serve clients). What it sends them goes
// at the end of each turn of its event loop (one post to a front; with several fronts, two to each
// of those with both emissions and answers but one): the realms' emissions of the turn to every
// front first — for several fronts encoded once with V8's serializer (a port's structured copy
// walks the objects again for each port) — then what is for one front alone (answers, metrics).
// The answers of a commit thus follow its events on every front, so a front writes them before it
// delivers the events to its queues (queues.ts), as one thread does, and a client answered anywhere
// finds the events wherever it reads. (V8's serializer has a fixed cost per use: it runs once a
// turn, not per publish; ARCHITECTURE.md has the measurements.)
import { serialize } from 'node:v8';
import type { MessagePort } from 'node:worker_threads';
import { HolderSet, type Holding } from '../events/holders.js';
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

export class FrontsOutbox {
  private published: Published[] = [];
  private scheduled = false;

  constructor(readonly fronts: readonly Front[]) {}

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
    return this.fronts.length > 1 ? { kind: 'events', encoded: serialize(published) } : { kind: 'events', published };
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
      if (batch.length > 0) front.port.postMessage(batch);
    }
  }
}
