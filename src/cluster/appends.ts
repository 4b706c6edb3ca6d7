// A realm log's appends as JetStream takes them: each message published on the realm's subject
// with its ID and its fence in headers and a reply subject of this node's, and the stream's answer
// (its acknowledgement, or why not) taken by one subscription for every append. JetStream's own
// publish goes through nats.js's request machinery, which settles every request by building an
// error with its stack, and a timer's: ~25-40 µs of the node's CPU an append here, a third of its
// share of one.
import { JetStreamApiError, PubHeaders, type ApiError } from '@nats-io/jetstream';
import { createInbox, headers, TimeoutError, type Msg } from '@nats-io/transport-node';
import { LOG_STREAM, type Cluster } from './connection.js';
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

  /** Answers come on the cluster's connection for as long as it is open (it drains with the node). */
  constructor(private readonly cluster: Cluster) {
    cluster.nc.subscribe(`${this.inbox}.*`, {
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
        this.cluster.nc.publish(subject, data, { reply: `${this.inbox}.${token}`, headers: fields });
      } catch (error) {
        this.settle(token);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async storedAs(subject: string, after: number, msgID: string): Promise<number | undefined> {
    const next = await this.cluster.jsm.direct.getMessage(LOG_STREAM, { next_by_subj: subject, seq: after + 1 });
    return next?.header.get(PubHeaders.MsgIdHdr) === msgID ? next.seq : undefined;
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

  /** Settles the append the answer is for. Whatever the answer, nothing thrown here reaches the
   * connection's reader (it would stop reading). */
  private answer(message: Msg): void {
    const awaited = this.settle(message.subject.slice(this.inbox.length + 1));
    if (!awaited) return;
    try {
      awaited.resolve(acknowledgement(message));
    } catch (error) {
      awaited.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** The stream's acknowledgement in an answer; else why not: JetStream's own error, or another
 * (tried again by the writer). */
function acknowledgement(message: Msg): { seq: number } {
  const status = message.headers?.code ?? 0;
  if (status === NO_RESPONDERS) throw new Error(`no stream takes ${message.subject}`);
  if (status !== 0 && message.data.length === 0) throw new Error(`NATS answered the append with status ${status}`);
  const answer = message.json<PubAnswer>();
  if (answer.error) throw new JetStreamApiError(answer.error);
  if (!answer.seq) throw new Error('JetStream answered the append without its sequence');
  return { seq: answer.seq };
}
