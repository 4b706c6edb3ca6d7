// A cluster realm's appends to its log: the writes recorded in one turn (a batch's, one after
// another) go in one log message, those made while an append is in flight go together in the
// next, each fenced on the sequence the one before was given.
import { Packr } from 'msgpackr';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();
