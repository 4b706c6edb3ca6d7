// A cluster realm's appends to its log: the writes recorded in one turn (a batch's, one after
// another) go in one log message, those made while an append is in flight go together in the
// next, each fenced on the sequence the one before was given. A try whose answer was lost is tried
// again, and stands even where the stream refuses the retry by its own fence; an acknowledgement
// not after the last sequence is no acknowledgement; another node's append is a fence.
import { JetStreamApiError } from '@nats-io/jetstream';
import { TimeoutError } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WRONG_LAST_SEQUENCE } from '../src/cluster/connection.js';
import { RealmWriter, type LogPublisher } from '../src/cluster/log.js';
import type { Change } from '../src/store/changes.js';

const codec = new Packr({ useRecords: false });

/** A log that keeps what it is sent, each acknowledged when the test says so. */
class HeldLog implements LogPublisher {
  readonly sent: { changes: Change[]; fence: number }[] = [];
  private readonly acks: (() => void)[] = [];

  publish(_subject: string, data: Uint8Array, options: { expect: { lastSubjectSequence: number } }): Promise<{ seq: number }> {
    const seq = this.sent.push({ changes: (codec.unpack(data) as { changes: Change[] }).changes, fence: options.expect.lastSubjectSequence });
    return new Promise((resolve) => this.acks.push(() => resolve({ seq })));
  }

  storedAs(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }

  /** Acknowledges every append sent so far, and lets the writer go on. */
  async acknowledge(): Promise<void> {
    for (const ack of this.acks.splice(0)) ack();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const change = (id: number): Change => ['messages', id, new Uint8Array([id])];
const ids = (changes: Change[]) => changes.map(([, key]) => key);

test('the writes recorded in one turn go in one append; those made while it is in flight, together in the next', async () => {
  const log = new HeldLog();
  const writer = new RealmWriter(log, 1, 0, () => undefined, () => undefined);
  const first = [1, 2, 3].map((id) => writer.append([change(id)]));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(log.sent.map(({ changes }) => ids(changes)), [[1, 2, 3]]);

  const second = [4, 5].map((id) => writer.append([change(id)]));
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(log.sent.length, 1, 'nothing more is sent while the append is in flight');
  await log.acknowledge();
  await Promise.all(first);
  assert.equal(log.sent.map(({ changes, fence }) => [ids(changes), fence]), [
    [[1, 2, 3], 0],
    [[4, 5], 1],
  ]);
  await log.acknowledge();
  await Promise.all(second);
});

/** How the stream answers a try: as it should; storing it but losing the answer; answering a
 * sequence of 0 without storing it (nats-server 2.10's answer to a retry of a message still being
 * replicated). */
type Answer = 'ack' | 'lost' | 'zero';

/** A stream's subject as a clustered stream of nats-server before 2.11 keeps it: the fence is
 * checked before the message ID. */
class Stream implements LogPublisher {
  readonly stored: { seq: number; id: string }[] = [];
  constructor(private readonly answers: Answer[]) {}

  publish(_subject: string, _data: Uint8Array, options: { msgID: string; expect: { lastSubjectSequence: number } }): Promise<{ seq: number }> {
    const answer = this.answers.shift() ?? 'ack';
    if (answer === 'zero') return Promise.resolve({ seq: 0 });
    const last = this.stored.at(-1)?.seq ?? 0;
    if (options.expect.lastSubjectSequence !== last) return Promise.reject(new JetStreamApiError({ code: 400, err_code: WRONG_LAST_SEQUENCE, description: `wrong last sequence: ${last}` }));
    this.stored.push({ seq: last + 1, id: options.msgID });
    return answer === 'lost' ? Promise.reject(new TimeoutError()) : Promise.resolve({ seq: last + 1 });
  }

  storedAs(_subject: string, after: number, msgID: string): Promise<number | undefined> {
    const next = this.stored.find(({ seq }) => seq > after);
    return Promise.resolve(next?.id === msgID ? next.seq : undefined);
  }
}

function writerOn(stream: Stream): { writer: RealmWriter; refused: number[] } {
  const refused: number[] = [];
  return { writer: new RealmWriter(stream, 1, stream.stored.at(-1)?.seq ?? 0, (realmId) => refused.push(realmId), () => undefined), refused };
}

test('an append whose answer was lost stands where it was stored, though the stream refuses its retry by its own fence', async () => {
  const stream = new Stream(['lost']);
  const { writer, refused } = writerOn(stream);
  await writer.append([change(1)]);
  await writer.append([change(2)]);
  assert.equal(stream.stored.map(({ seq }) => seq), [1, 2], 'each append stored once');
  assert.is(writer.lastSeq, 2);
  assert.equal(refused, []);
});

test('an acknowledgement not after the last sequence is tried again', async () => {
  const stream = new Stream(['zero']);
  const { writer, refused } = writerOn(stream);
  await writer.append([change(1)]);
  assert.equal([writer.lastSeq, stream.stored.length, refused], [1, 1, []]);
});

test("another node's append is a fence: the writer's append is refused and the realm given up", async () => {
  const stream = new Stream([]);
  stream.stored.push({ seq: 1, id: 'another node' });
  const refused: number[] = [];
  const writer = new RealmWriter(stream, 1, 0, (realmId) => refused.push(realmId), () => undefined);
  try {
    await writer.append([change(1)]);
    assert.unreachable('appended after the fence moved');
  } catch (error) {
    assert.match(String(error), /wrong last sequence/);
  }
  assert.equal([refused, stream.stored.length], [[1], 1]);
});

test.run();
