// A realm log's appends as JetStream takes them: each message published on the realm's subject
// with its ID and its fence in headers and a reply subject of this node's, and the stream's answer
// (its acknowledgement, or why not) taken by one subscription for every append. JetStream's own
// publish goes through nats.js's request machinery, which settles every request by building an
// error with its stack, and a timer's: ~40 µs of the node's CPU an append here, a third of its
// share of one.
import { JetStreamApiError, PubHeaders, type ApiError } from '@nats-io/jetstream';
import { createInbox, headers, TimeoutError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { LogPublisher } from './log.js';

interface Awaited {
  resolve(ack: { seq: number }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** What the stream answers a publish: its acknowledgement, or the error. */
interface PubAnswer {
  seq?: number;
  error?: ApiError;
}

/** The status of a reply nobody sent: no stream took the subject (NATS's no-responders). */
const NO_RESPONDERS = 503;

export class JetStreamAppends implements LogPublisher {
  private readonly inbox = createInbox();
  private readonly awaited = new Map<string, Awaited>();
  private count = 0;

  /** Answers come on `nc` for as long as it is open (it drains with the node). */
  constructor(private readonly nc: NatsConnection) {
    nc.subscribe(`${this.inbox}.*`, {
      callback: (error, message) => {
        if (!error) this.answer(message);
      },
    });
  }

  publish(subject: string, data: Uint8Array, options: { msgID: string; expect: { lastSubjectSequence: number }; timeout: number }): Promise<{ seq: number }> {
    const token = (++this.count).toString(36);
    const fields = headers();
    fields.set(PubHeaders.MsgIdHdr, options.msgID);
    fields.set(PubHeaders.ExpectedLastSubjectSequenceHdr, String(options.expect.lastSubjectSequence));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.awaited.delete(token);
        reject(new TimeoutError());
      }, options.timeout);
      this.awaited.set(token, { resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}.${token}`, headers: fields });
      } catch (error) {
        this.settle(token);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** The append awaiting `token`'s answer, no longer awaited (undefined: answered already, or its
   * attempt timed out). */
  private settle(token: string): Awaited | undefined {
    const awaited = this.awaited.get(token);
    if (!awaited) return undefined;
    this.awaited.delete(token);
    clearTimeout(awaited.timer);
    return awaited;
  }

  private answer(message: Msg): void {
    const awaited = this.settle(message.subject.slice(this.inbox.length + 1));
    if (!awaited) return;
    if (message.headers?.code === NO_RESPONDERS) {
      awaited.reject(new Error(`no stream takes ${message.subject}`));
      return;
    }
    const answer = message.json<PubAnswer>();
    if (answer.error) awaited.reject(new JetStreamApiError(answer.error));
    else if (answer.seq === undefined) awaited.reject(new Error('JetStream answered an append without its sequence'));
    else awaited.resolve({ seq: answer.seq });
  }
}
