// A realm log's appends (src/cluster/appends.ts) as JetStream answers them, on a real nats-server:
// the stream's sequence; a fence that does not hold, refused with JetStream's own error (the
// writer's signal that another node took the realm); an append tried again after a lost answer,
// answered with the sequence it was stored at (and found after it); a subject no stream takes,
// refused at once; an answer that is not JetStream's, refused without stopping the connection. A
// node taking a realm over fences its log where it read it.
import { JetStreamApiError } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JetStreamAppends } from '../../src/cluster/appends.js';
import { subjects, WRONG_LAST_SEQUENCE } from '../../src/cluster/connection.js';
import { ClusterLog } from '../../src/cluster/log.js';
import type { Change } from '../../src/store/changes.js';
import { onNats } from '../helpers/cluster.js';

test('appends are fenced by the last sequence, tried again by their ID, and refused where no stream listens', () =>
  onNats(async (cluster, natsUrl) => {
    const appends = new JetStreamAppends(cluster);
    const append = (id: string, last: number, subject = subjects.log(7)) => appends.publish(subject, new TextEncoder().encode(id), { msgID: id, expect: { lastSubjectSequence: last }, timeout: 2000 });
    const first = await append('a', 0);
    const second = await append('b', first.seq);
    assert.ok(second.seq > first.seq);
    try {
      await append('c', first.seq);
      assert.unreachable('appended after a stale fence');
    } catch (error) {
      assert.instance(error, JetStreamApiError);
      assert.is((error as JetStreamApiError).code, WRONG_LAST_SEQUENCE);
    }
    assert.equal(await append('b', first.seq), second, 'the same message again: answered with where it is');
    assert.is(await appends.storedAs(subjects.log(7), first.seq, 'b'), second.seq, 'the message after the first is b');
    assert.is(await appends.storedAs(subjects.log(7), first.seq, 'c'), undefined);
    try {
      await append('d', 0, 'parley.nowhere');
      assert.unreachable('no stream takes the subject');
    } catch (error) {
      assert.match(String(error), /no stream takes/);
    }
    // An answer that is not JetStream's refuses the append (the writer tries again), and the
    // connection goes on reading.
    const elsewhere = await connect({ servers: [natsUrl] });
    elsewhere.subscribe('parley.elsewhere', {
      callback: (_error, message) => {
        message.respond(new TextEncoder().encode('not json'));
      },
    });
    await elsewhere.flush();
    try {
      await append('e', 0, 'parley.elsewhere');
      assert.unreachable('an answer without an acknowledgement');
    } catch (error) {
      assert.instance(error, SyntaxError);
    }
    assert.ok((await append('f', second.seq)).seq > second.seq, 'the next append is answered');
    await elsewhere.close();
  }));

test("a realm's log fenced by the node taking the realm refuses the previous owner's next append", () =>
  onNats(async (cluster) => {
    const change: Change = ['messages', 1, new Uint8Array([1])];
    const refused: string[] = [];
    const logOf = (node: string) => new ClusterLog(cluster, new JetStreamAppends(cluster), () => refused.push(node), () => undefined);
    const [previous, next] = [logOf('previous'), logOf('next')];
    previous.own(9, 0);
    await previous.append(9, [change]);
    const read = await next.read(9, 0, async () => undefined);
    next.own(9, read);
    await next.fence(9);
    try {
      await previous.append(9, [change]);
      assert.unreachable('the previous owner appended after the new one read the log');
    } catch (error) {
      assert.match(String(error), /wrong last sequence/);
    }
    assert.equal(refused, ['previous']);
    await next.append(9, [change]);
    assert.is(await next.read(9, 0, async () => undefined), read + 2, "the fence, then the new owner's append");
  }));

test.run();
