// Where answers to a node's requests over NATS come back: one subscription to the node's inbox
// (`<inbox>.*`), each request (a log append, a batch of commands) with a reply subject of its own
// under it. nats.js's request machinery settles every request by building an error with its stack,
// and a timer's: a third of a log append's cost to the node, and as much again for a command asked
// of another node.
import { createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** The status of a reply nobody sent: no one subscribes to the request's subject (NATS's
 * no-responders, sent because the connection asks for it). */
export const NO_RESPONDERS = 503;

export class Inbox {
  private readonly prefix = createInbox();
  private readonly handlers = new Map<string, (message: Msg) => void>();
  private count = 0;

  /** Answers come for as long as the connection is open (it drains with the node). */
  constructor(nc: NatsConnection) {
    nc.subscribe(`${this.prefix}.*`, {
      callback: (error, message) => {
        if (error) return;
        const handler = this.handlers.get(message.subject.slice(this.prefix.length + 1));
        // Nothing thrown by a handler may reach the connection's reader: it would stop reading.
        try {
          handler?.(message);
        } catch {
          // A handler settles its own request whatever the answer; what escapes is dropped.
        }
      },
    });
  }

  /** A reply subject of its own whose messages go to `handler` until the answer is closed. */
  open(handler: (message: Msg) => void): { subject: string; close(): void } {
    const token = (++this.count).toString(36);
    this.handlers.set(token, handler);
    return { subject: `${this.prefix}.${token}`, close: () => this.handlers.delete(token) };
  }
}
