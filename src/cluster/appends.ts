// A realm log's appends as JetStream takes them: each message published on the realm's subject
// with its ID and its fence in headers and a reply subject in the node's inbox, where the stream's
// answer (its acknowledgement, or why not) comes. JetStream's own publish goes through nats.js's
// request machinery (see inbox.ts): ~25-40 µs of the node's CPU an append here, a third of its
// share of one.
import { JetStreamApiError, PubHeaders, type ApiError } from '@nats-io/jetstream';
import { headers, TimeoutError, type Msg } from '@nats-io/transport-node';
import { LOG_STREAM, type Cluster } from './connection.js';
import { NO_RESPONDERS } from './inbox.js';
import type { LogPublisher } from './log.js';

/** What the stream answers a publish: its acknowledgement, or the error. */
interface PubAnswer {
  seq?: number;
  error?: ApiError;
}

export class JetStreamAppends implements LogPublisher {
  constructor(private readonly cluster: Cluster) {}

  publish(subject: string, data: Uint8Array, options: { msgID: string; expect: { lastSubjectSequence: number }; timeout: number }): Promise<{ seq: number }> {
    const fields = headers();
    fields.set(PubHeaders.MsgIdHdr, options.msgID);
    fields.set(PubHeaders.ExpectedLastSubjectSequenceHdr, String(options.expect.lastSubjectSequence));
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        answer.close();
      };
      // The first answer settles the append; another (there is none) would find it closed.
      const answer = this.cluster.inbox.open((message) => {
        settle();
        try {
          resolve(acknowledgement(message));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      const timer = setTimeout(() => {
        answer.close();
        reject(new TimeoutError());
      }, options.timeout);
      try {
        this.cluster.nc.publish(subject, data, { reply: answer.subject, headers: fields });
      } catch (error) {
        settle();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async storedAs(subject: string, after: number, msgID: string): Promise<number | undefined> {
    const next = await this.cluster.jsm.direct.getMessage(LOG_STREAM, { next_by_subj: subject, seq: after + 1 });
    return next?.header.get(PubHeaders.MsgIdHdr) === msgID ? next.seq : undefined;
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
