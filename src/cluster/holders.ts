// Who holds event queues, cluster-wide: queues live on the node where they were registered, but
// the realm's owner decides who is connected (no missed-message push or e-mail for them) and who
// gets a public channel's messages by all_public_streams. Each node tells a realm's owner how
// each user's queues there changed (`parley.realm.<id>.holders`), and all of them when a new owner
// asks or after the node (re)started; a registration counts from its start (EventQueues tells of it
// before the owner is asked for the register state, so the owner counts the queue from before it
// exists) until it ends, told again at once when it opened no queue (refused by the owner, or by
// the gateway after the owner answered). The owner drops what nodes that stopped beating told it.
import type { Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { allHoldings, allPublicOf, HolderSet, holdingOf, type Holding } from '../events/holders.js';
import type { EventQueues } from '../events/queues.js';
import type { QueueHolders } from '../realm/links.js';
import { subjects, type Cluster } from './connection.js';

const codec = new Packr({ useRecords: false });

interface Report {
  node: string;
  /** All of the node's holders of the realm (else only changes). */
  full: boolean;
  users: [userId: number, holding: Holding][];
}

export class ClusterHolders {
  /** Realms owned here → other nodes → what each told. */
  private readonly told = new Map<number, Map<string, HolderSet>>();
  private readonly served = new Map<number, Subscription>();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly nodeId: string,
    private readonly queues: EventQueues,
  ) {}

  /** Answers owners' requests, tells them of every change from now on, and voids what this node
   * told before it (re)started, telling anew what queues it restored. */
  start(): void {
    const { nc } = this.cluster;
    this.subscriptions = [
      nc.subscribe(subjects.holdersAsk, {
        callback: (error, message) => {
          if (!error) this.tellAll(codec.unpack(message.data) as number);
        },
      }),
      nc.subscribe(subjects.holdersReset, {
        callback: (error, message) => {
          if (error) return;
          const node = codec.unpack(message.data) as string;
          for (const nodes of this.told.values()) nodes.delete(node);
        },
      }),
    ];
    this.queues.onHoldersChanged = (realmId, userId) => this.tell(realmId, false, [[userId, holdingOf(this.queues, realmId, userId)]]);
    nc.publish(subjects.holdersReset, codec.pack(this.nodeId));
    for (const realmId of this.queues.realmIds()) this.tellAll(realmId);
  }

  stop(): void {
    this.queues.onHoldersChanged = undefined;
    for (const subscription of [...this.subscriptions, ...this.served.values()]) subscription.unsubscribe();
  }

  /** Who holds the queues of a realm this node now owns: its own, and what the others tell it
   * (asked at once). */
  serve(realmId: number): QueueHolders {
    const nodes = new Map<string, HolderSet>();
    this.told.set(realmId, nodes);
    this.served.get(realmId)?.unsubscribe();
    const callback = (error: Error | null, message: { data: Uint8Array }) => {
      if (!error) this.receive(nodes, codec.unpack(message.data) as Report);
    };
    this.served.set(realmId, this.cluster.nc.subscribe(subjects.holders(realmId), { callback }));
    // Subscribed first: every answer finds the subscription.
    this.cluster.nc.publish(subjects.holdersAsk, codec.pack(realmId));
    return {
      hasQueue: (realm, userId) => {
        if (this.queues.hasQueue(realm, userId)) return true;
        for (const told of nodes.values()) if (told.users.has(userId)) return true;
        return false;
      },
      allPublicStreamsUsers: (realm) => {
        const users = allPublicOf(nodes.values());
        for (const userId of this.queues.allPublicStreamsUsers(realm)) users.add(userId);
        return users;
      },
    };
  }

  /** Whether a node other than this one told of a queue of a realm owned here (or of one being
   * registered). */
  heldElsewhere(realmId: number): boolean {
    for (const told of this.told.get(realmId)?.values() ?? []) if (told.users.size > 0) return true;
    return false;
  }

  /** The realm left this node. */
  unserve(realmId: number): void {
    this.served.get(realmId)?.unsubscribe();
    this.served.delete(realmId);
    this.told.delete(realmId);
  }

  /** Forgets what nodes no longer alive told. */
  prune(live: readonly string[]): void {
    for (const nodes of this.told.values()) for (const node of nodes.keys()) if (!live.includes(node)) nodes.delete(node);
  }

  private tellAll(realmId: number): void {
    const users = allHoldings(this.queues, realmId);
    if (users.length > 0) this.tell(realmId, true, users);
  }

  private tell(realmId: number, full: boolean, users: Report['users']): void {
    this.cluster.nc.publish(subjects.holders(realmId), codec.pack({ node: this.nodeId, full, users } satisfies Report));
  }

  private receive(nodes: Map<string, HolderSet>, report: Report): void {
    let told = nodes.get(report.node);
    if (!told || report.full) nodes.set(report.node, (told = new HolderSet()));
    told.tell(report.users);
  }
}
