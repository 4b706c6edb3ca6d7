// Commands between nodes: a realm's owner answers `parley.realm.<id>.cmd` with its actor; any other
// node asks through NATS request/reply, as plain msgpack. A request nobody listens to (the realm is
// moving to another node) is tried again until a deadline. An unanswered read is tried again too
// (a request that reached an owner as it died is lost); an unanswered write is not, since it may have
// run, and the client gets 503 to retry.
import { RequestError, TimeoutError, type Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { errors } from '../errors.js';
import { commands, type CommandName, type InputOf, type OutputOf } from '../realm/commands/index.js';
import type { RealmHandle } from '../realm/handle.js';
import { outputOf, replyTo, type CommandRequest, type Reply, type RequestOf } from '../realm/replies.js';
import { subjects, type Cluster } from './connection.js';

const codec = new Packr({ useRecords: false, structuredClone: true });

/** How long a request may wait for the realm's owner (one taking the realm over included). */
const REQUEST_DEADLINE_MS = 10_000;
const RETRY_MS = 100;
/** How long one attempt of a read waits before it is sent again. */
const READ_ATTEMPT_MS = 3_000;

/** Answers the realm's commands from other nodes with `handle` (the local actor). */
export function serveCommands(cluster: Cluster, realmId: number, handle: RealmHandle): Subscription {
  return cluster.nc.subscribe(subjects.commands(realmId), {
    callback: (error, message) => {
      if (error) return;
      void replyTo(handle, codec.unpack(message.data) as CommandRequest).then((reply) => message.respond(codec.pack(reply)));
    },
  });
}

/** A realm owned by another node. */
export class RemoteRealm implements RealmHandle {
  constructor(
    private readonly cluster: Cluster,
    readonly realm: { id: number; subdomain: string },
    /** The realm's actor, should this node have taken the realm meanwhile (a node does not hear its
     * own requests: its connection has no echo). */
    private readonly local: () => RealmHandle | undefined = () => undefined,
  ) {}

  /** Over NATS, always a promise. */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return this.ask(name, userId, input);
  }

  async ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    const deadline = performance.now() + REQUEST_DEADLINE_MS;
    const payload = codec.pack([name, userId, input] satisfies RequestOf<N>);
    const read = commands[name].mode !== 'write';
    for (;;) {
      const here = this.local();
      if (here) return here.ask(name, userId, input);
      let reply: Reply;
      const remaining = deadline - performance.now();
      try {
        const message = await this.cluster.nc.request(subjects.commands(this.realm.id), payload, { timeout: Math.max(1, read ? Math.min(READ_ATTEMPT_MS, remaining) : remaining) });
        reply = codec.unpack(message.data) as Reply;
      } catch (error) {
        const again = (error instanceof RequestError && error.isNoResponders()) || (read && error instanceof TimeoutError);
        if (again && performance.now() + RETRY_MS < deadline) {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        throw errors.realmMoved();
      }
      return outputOf<N>(reply);
    }
  }
}
