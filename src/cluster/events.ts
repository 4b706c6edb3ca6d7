// Events between nodes: a realm's owner publishes each batch of emissions once on
// `parley.events.<realm>`, with the lease epoch and the realm position of its first emission; every
// other node delivers them to its own queues at the same positions. A batch that does not follow
// on from the last one seen (a lost message, a new owner) drops that realm's queues on the node:
// their clients get BAD_EVENT_QUEUE_ID and register again, as Zulip's clients do after a restart.
import type { Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import type { ZulipEvent } from '../events/types.js';
import type { EventQueues, EventSink } from '../events/queues.js';
import type { Emitted } from '../events/types.js';
import { subjects, type Cluster } from './connection.js';

const codec = new Packr({ useRecords: false, structuredClone: true });

/** An emission as it travels: message events carry every variant a queue may ask for. */
interface WireEmission extends Omit<Emitted, 'userIds' | 'forQueue'> {
  userIds: number[];
  variants?: [applyMarkdown: boolean, clientGravatar: boolean, event: ZulipEvent][];
}

interface Batch {
  node: string;
  epoch: number;
  /** The realm position of the first emission. */
  from: number;
  emissions: WireEmission[];
}

const settingsCombinations = [true, false].flatMap((applyMarkdown) => [true, false].map((clientGravatar) => ({ applyMarkdown, clientGravatar })));

function toWire({ userIds, forQueue, ...rest }: Emitted): WireEmission {
  const wire: WireEmission = { ...rest, userIds: [...userIds] };
  if (forQueue) wire.variants = settingsCombinations.map((settings) => [settings.applyMarkdown, settings.clientGravatar, forQueue(settings)]);
  return wire;
}

function fromWire({ variants, ...rest }: WireEmission): Emitted {
  if (!variants) return rest;
  return { ...rest, forQueue: (settings) => variants.find(([markdown, gravatar]) => markdown === settings.applyMarkdown && gravatar === settings.clientGravatar)![2] };
}

export class EventBus {
  /** Realm → the epoch and position of the last batch delivered here. */
  private readonly followed = new Map<number, { epoch: number; position: number }>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly nodeId: string,
    private readonly queues: EventQueues,
  ) {}

  /** Delivers other nodes' batches to this node's queues. */
  start(): void {
    this.subscription = this.cluster.nc.subscribe(subjects.allEvents, {
      callback: (error, message) => {
        if (!error) this.receive(Number(message.subject.split('.').pop()), codec.unpack(message.data) as Batch);
      },
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  private receive(realmId: number, batch: Batch): void {
    if (batch.node === this.nodeId) return;
    const last = this.followed.get(realmId);
    if (last && (last.epoch !== batch.epoch || last.position + 1 !== batch.from)) this.queues.deleteRealmQueues(realmId);
    this.followed.set(realmId, { epoch: batch.epoch, position: batch.from + batch.emissions.length - 1 });
    this.queues.publish(realmId, batch.emissions.map(fromWire), batch.from);
  }

  /** The sink of a realm this node owns under `epoch`: its own queues, then every other node. */
  sinkFor(epoch: number): EventSink {
    return {
      publish: (realmId, emitted) => {
        if (emitted.length === 0) return;
        const from = this.queues.position(realmId) + 1;
        this.queues.publish(realmId, emitted);
        this.followed.set(realmId, { epoch, position: from + emitted.length - 1 });
        const batch: Batch = { node: this.nodeId, epoch, from, emissions: emitted.map(toWire) };
        this.cluster.nc.publish(subjects.events(realmId), codec.pack(batch));
      },
    };
  }
}
