// Events between nodes: a realm's owner publishes each batch of emissions once on
// `parley.events.<realm>`, with the lease epoch and the realm position of its first emission; every
// other node delivers them to its own queues at the same positions (EventQueues.receive: a batch
// that does not follow on, or a new owner's, drops the queues that may lack events; their clients
// get BAD_EVENT_QUEUE_ID and register again, as Zulip's clients do after a restart). While no
// other node holds a queue of the realm, nor is registering one (as the nodes told its owner, a
// registration before it asks for its state), the owner publishes no batch, only, at its next
// tick, the realm's position (an empty batch after it): a node that then registers hears batches
// that follow on from its state, and a queue the owner did not know of (what a node told was lost,
// or dropped with a late heartbeat) is dropped within a tick of the emissions it did not get.
// A realm's batches of one turn travel as one NATS message (several commands committed together
// publish theirs in one turn). They reach NATS before the answers to commands of that turn, whose
// state may include them (`flush`, which the owner's answers are sent behind).
import type { Subscription } from '@nats-io/transport-node';
import type { EventQueues, EventSink, HeardBatch } from '../events/queues.js';
import type { Emitted } from '../events/types.js';
import type { Logger } from '../ops/log.js';
import { decodeBatches, encodeBatch } from './batches.js';
import { subjects, type Cluster } from './connection.js';
import { Gathered } from './gathered.js';

export class EventBus {
  private subscription: Subscription | undefined;
  /** The realms owned here that published emissions no other node was sent since the last batch
   * or position sent, with the epoch they are owned under. */
  private readonly untold = new Map<number, number>();
  /** Each batch gathered with its realm and epoch. */
  private readonly batches: Gathered<[realmId: number, epoch: number]>;

  constructor(
    private readonly cluster: Cluster,
    private readonly queues: EventQueues,
    /** Whether a node other than this one holds, or is registering, a queue of a realm owned here. */
    private readonly heldElsewhere: (realmId: number) => boolean,
    /** Whether this node owns the realm. */
    private readonly ownedHere: (realmId: number) => boolean,
    private readonly log: Logger,
  ) {
    // Not sent (a batch larger than NATS's largest message; before, the command that emitted it was
    // left unanswered): its realm's position is told at the next tick, after which the other
    // nodes' queues that lack the batch are dropped (their clients register again).
    this.batches = new Gathered(
      cluster.nc,
      (subject, data) => cluster.nc.publish(subject, data),
      (unsent, error) => {
        log.error({ err: error }, 'cluster: a batch of emissions could not be sent');
        for (const [realmId, epoch] of unsent) this.untold.set(realmId, epoch);
      },
    );
  }

  /** Delivers other nodes' batches to this node's queues; once the connection to NATS is back
   * after a break, this node's queues of other nodes' realms start over (batches sent meanwhile are
   * lost, and the next may be long in coming). */
  start(): void {
    this.subscription = this.cluster.nc.subscribe(subjects.allEvents, {
      callback: (error, message) => {
        if (error) return;
        const realmId = Number(message.subject.split('.').pop());
        // What cannot be read is as if lost: the next batch does not follow on (a throw here would
        // stop the connection's reader).
        try {
          for (const batch of decodeBatches(message.data)) this.queues.receive(realmId, batch.header, batch.emissions);
        } catch (error) {
          this.log.error({ err: error, realm: realmId }, 'cluster: a batch of emissions could not be taken');
        }
      },
    });
    void (async () => {
      for await (const status of this.cluster.nc.status()) if (status.type === 'reconnect') this.queues.lostTrack(this.ownedHere);
    })();
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  /** Tells the other nodes where each realm owned here stands that published emissions they were
   * not sent (an empty batch after its position): a node holding a queue of it that its owner did
   * not know of drops it. Called on every tick of the node. */
  tellPositions(): void {
    for (const [realmId, epoch] of this.untold) {
      this.untold.delete(realmId);
      if (this.queues.epoch(realmId) !== epoch) continue;
      this.send(realmId, { epoch, from: this.queues.position(realmId) + 1 }, []);
    }
  }

  /** Sends the batches gathered so far now (before answers that may include them). */
  flush(): void {
    this.batches.flush();
  }

  /** Gathers a batch to send when the turn ends. */
  private send(realmId: number, header: HeardBatch, emitted: readonly Emitted[]): void {
    this.batches.add(subjects.events(realmId), encodeBatch(header, emitted), [realmId, header.epoch]);
  }

  /** The sink of a realm this node owns from now on under `epoch` (its queues of the realm start
   * over): its own queues, then every other node. Once this node hears of a later owner, the
   * realm's positions here are that owner's: the sink gives none (a registration is refused, and
   * tried again) and takes no more emissions (the later owner's state has those that were logged). */
  sinkFor(realmId: number, epoch: number): EventSink {
    this.queues.newEpoch(realmId, epoch);
    return {
      position: (id) => this.queues.ownPosition(id, epoch),
      epoch: () => epoch,
      publish: (id, emitted) => {
        if (emitted.length === 0) return;
        const from = this.queues.publishOwn(id, epoch, emitted);
        if (from === undefined) return;
        if (this.heldElsewhere(id)) {
          this.send(id, { epoch, from }, emitted);
          this.untold.delete(id);
        } else this.untold.set(id, epoch);
      },
    };
  }
}
