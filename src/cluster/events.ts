// Events between nodes: a realm's owner publishes each batch of emissions once on
// `parley.events.<realm>`, with the lease epoch and the realm position of its first emission; every
// other node delivers them to its own queues at the same positions. A batch that does not follow
// on from the last one seen (a lost message, a new owner) drops that realm's queues on the node:
// their clients get BAD_EVENT_QUEUE_ID and register again, as Zulip's clients do after a restart.
// While no other node holds a queue of the realm (as the nodes told its owner, a registration
// before it asks for its state), the owner does not send the emissions: it tells how many there
// were, before its next batch or within WITHHELD_TELL_MS, so that the positions still follow on and
// a node holding a queue the owner did not know of drops it rather than miss them.
import type { Subscription } from '@nats-io/transport-node';
import type { EventQueues, EventSink } from '../events/queues.js';
import { decodeBatch, encodeBatch, type BatchHeader } from './batches.js';
import type { Emitted } from '../events/types.js';
import { subjects, type Cluster } from './connection.js';

/** How soon emissions not sent are told of. */
export const WITHHELD_TELL_MS = 1000;

export class EventBus {
  /** Realm → the epoch and position of the last batch delivered here. */
  private readonly followed = new Map<number, { epoch: number; position: number }>();
  /** Realms owned here → the emissions not sent since the last batch that was. */
  private readonly withheld = new Map<number, Required<BatchHeader>>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly queues: EventQueues,
    /** Whether a node other than this one holds, or is registering, a queue of a realm owned here. */
    private readonly heldElsewhere: (realmId: number) => boolean,
  ) {}

  /** Delivers other nodes' batches to this node's queues, and tells of emissions not sent. */
  start(): void {
    this.subscription = this.cluster.nc.subscribe(subjects.allEvents, {
      callback: (error, message) => {
        if (error) return;
        const batch = decodeBatch(message.data);
        this.receive(Number(message.subject.split('.').pop()), batch.header, batch.emissions);
      },
    });
    this.timer = setInterval(() => {
      for (const realmId of [...this.withheld.keys()]) this.tellWithheld(realmId);
    }, WITHHELD_TELL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
  }

  private receive(realmId: number, header: BatchHeader, emissions: Emitted[]): void {
    const last = this.followed.get(realmId);
    if (last && (last.epoch !== header.epoch || last.position + 1 !== header.from)) this.queues.deleteRealmQueues(realmId);
    const through = header.from + (header.withheld ?? emissions.length) - 1;
    this.followed.set(realmId, { epoch: header.epoch, position: through });
    if (header.withheld === undefined) this.queues.publish(realmId, emissions, header.from);
    else this.queues.passOver(realmId, through);
  }

  /** Tells the other nodes of the realm's emissions not sent, if there are some. */
  private tellWithheld(realmId: number): void {
    const header = this.withheld.get(realmId);
    if (!header) return;
    this.withheld.delete(realmId);
    this.cluster.nc.publish(subjects.events(realmId), encodeBatch(header, []));
  }

  /** The realm is no longer this node's: emissions not sent under its epoch are not told of (the
   * new owner's epoch starts the other nodes' queues over). */
  release(realmId: number): void {
    this.withheld.delete(realmId);
  }

  /** The sink of a realm this node owns under `epoch`: its own queues, then every other node. */
  sinkFor(epoch: number): EventSink {
    return {
      position: (realmId) => this.queues.position(realmId),
      publish: (realmId, emitted) => {
        if (emitted.length === 0) return;
        const from = this.queues.position(realmId) + 1;
        this.queues.publish(realmId, emitted);
        this.followed.set(realmId, { epoch, position: from + emitted.length - 1 });
        if (!this.heldElsewhere(realmId)) {
          const withheld = this.withheld.get(realmId);
          if (withheld?.epoch === epoch) withheld.withheld += emitted.length;
          else this.withheld.set(realmId, { epoch, from, withheld: emitted.length });
          return;
        }
        this.tellWithheld(realmId);
        this.cluster.nc.publish(subjects.events(realmId), encodeBatch({ epoch, from }, emitted));
      },
    };
  }
}
