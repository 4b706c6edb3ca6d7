// Events between nodes: a realm's owner publishes each batch of emissions once on
// `parley.events.<realm>`, with the lease epoch and the realm position of its first emission; every
// other node delivers them to its own queues at the same positions. A batch that does not follow
// on from the last one seen (a lost message, a new owner) drops that realm's queues on the node:
// their clients get BAD_EVENT_QUEUE_ID and register again, as Zulip's clients do after a restart.
// While no other node holds a queue of the realm, nor is registering one (as the nodes told its
// owner, a registration before it asks for its state), the owner sends a batch's header alone, with
// how many emissions it stands for: the positions follow on as before, and a node holding a queue
// the owner did not know of drops it rather than miss them.
import type { Subscription } from '@nats-io/transport-node';
import type { EventQueues, EventSink } from '../events/queues.js';
import { decodeBatch, encodeBatch, type BatchHeader } from './batches.js';
import type { Emitted } from '../events/types.js';
import { subjects, type Cluster } from './connection.js';

export class EventBus {
  /** Realm → the epoch and position of the last batch delivered here. */
  private readonly followed = new Map<number, { epoch: number; position: number }>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly queues: EventQueues,
    /** Whether a node other than this one holds, or is registering, a queue of a realm owned here. */
    private readonly heldElsewhere: (realmId: number) => boolean,
  ) {}

  /** Delivers other nodes' batches to this node's queues. */
  start(): void {
    this.subscription = this.cluster.nc.subscribe(subjects.allEvents, {
      callback: (error, message) => {
        if (error) return;
        const batch = decodeBatch(message.data);
        this.receive(Number(message.subject.split('.').pop()), batch.header, batch.emissions);
      },
    });
  }

  stop(): void {
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

  /** The sink of a realm this node owns under `epoch`: its own queues, then every other node. */
  sinkFor(epoch: number): EventSink {
    return {
      position: (realmId) => this.queues.position(realmId),
      publish: (realmId, emitted) => {
        if (emitted.length === 0) return;
        const from = this.queues.position(realmId) + 1;
        this.queues.publish(realmId, emitted);
        this.followed.set(realmId, { epoch, position: from + emitted.length - 1 });
        const batch = this.heldElsewhere(realmId) ? encodeBatch({ epoch, from }, emitted) : encodeBatch({ epoch, from, withheld: emitted.length }, []);
        this.cluster.nc.publish(subjects.events(realmId), batch);
      },
    };
  }
}
