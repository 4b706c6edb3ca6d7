// A realm with a log (a cluster's): the log is the commit. A write is answered once the log holds
// it, while LMDB's batch is still being made durable; the reads after it wait for that batch, and a
// batch that fails once the log took the write leaves the write acknowledged and the realm given
// up by this copy (another node rebuilds it from the log).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../src/errors.js';
import { EventQueues } from '../src/events/queues.js';
import { RealmActor } from '../src/realm/actor.js';
import type { MessageRecord } from '../src/messages/records.js';
import type { Change } from '../src/store/changes.js';
import { StorageError, Store, type RecordedWriteOptions } from '../src/store/store.js';
import { IdBlocks } from '../src/cluster/ids.js';
import type { Config } from '../src/config.js';
import type { IdSupply } from '../src/realm/log.js';
import { MemoryIdCounters } from './helpers/memoryIdCounters.js';
import { MemoryLog } from './helpers/memoryLog.js';
import { startTestServer, waitFor } from './helpers/server.js';

/** A store whose write batches are reported done only once the test lets them be, or failed. */
class HeldStore extends Store {
  private held: Promise<void> = Promise.resolve();
  private let: () => void = () => undefined;
  failure: StorageError | undefined;

  hold(): void {
    this.held = new Promise((resolve) => (this.let = resolve));
  }

  release(): void {
    this.let();
  }

  override recordedWrite<T>(fn: () => T, options?: RecordedWriteOptions<T>): Promise<{ result: T; changes: Change[] }> {
    return super.recordedWrite(fn, options).then(async (written) => {
      await this.held;
      if (this.failure) throw this.failure;
      return written;
    });
  }
}

/** The demo realm's actor on a HeldStore, with a log in memory (and IDs from `ids`, as a cluster's). */
async function heldRealm(overrides: Partial<Config> = {}, ids?: IdSupply) {
  const server = await startTestServer(overrides);
  const hamletId = Number((await (await server.as('hamlet@zulip.com')).get('/users/me')).body.user_id);
  await server.parley.close();
  const store = new HeldStore(join(server.config.dataDir, 'parley.mdb'));
  const log = new MemoryLog();
  const actor = new RealmActor(store, server.config, new EventQueues(store, server.config.clock, server.config.metrics), store.realms.get(1)!, { log, ids });
  const send = (content: string) => actor.ask('messages.send', hamletId, { type: 'stream', to: ['Verona'], topic: 'log commit', content, readBySender: true, client: 'test' });
  const read = (messageId: number) => actor.ask('messages.get', hamletId, { messageId, applyMarkdown: false, allowEmptyTopicName: true });
  return {
    hamletId,
    store,
    log,
    actor,
    send,
    read,
    async close() {
      await store.close();
      rmSync(server.config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether a promise settles within a turn of the event loop after the log's appends. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  // The MemoryLog appends on a timer: two timer turns see the append done and its answer out.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
  return settled;
}

test("a write is answered once the log holds it, before LMDB's batch is done; a read after it waits for the batch", async () => {
  const { store, log, send, read, close } = await heldRealm();
  try {
    store.hold();
    const sending = send('answered by the log');
    // The write runs in LMDB's batch when LMDB's write thread says so (later on a busy machine);
    // once the log holds it, the answer follows at once, the batch still held.
    await waitFor(() => log.entries.length === 1, 10_000);
    assert.ok(await settlesSoon(sending), "the send was not answered while LMDB's batch was held");
    const { id } = await sending;
    assert.is(log.entries.length, 1, 'the log holds the write');
    const reading = read(id);
    assert.not.ok(await settlesSoon(reading), "a read ran before the earlier write's batch was done");
    store.release();
    assert.is((await reading).raw_content, 'answered by the log');
  } finally {
    await close();
  }
});

test("a batch that fails once the log took the write: the write stays acknowledged, and this copy gives the realm up", async () => {
  const { store, log, actor, send, read, close } = await heldRealm();
  try {
    store.failure = new StorageError(new Error('ENOSPC: no space left on device'));
    const { id } = await send('kept by the log');
    assert.is(log.entries.length, 1);
    await actor.idle();
    assert.ok(log.refusing, 'the realm was abandoned: the log is refused to this copy');
    const refused = await read(id).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.instance(refused, ApiError);
    assert.is((refused as ApiError).code, 'REALM_UNAVAILABLE');
  } finally {
    await close();
  }
});

/** What became of each of several sends: 'sent', or the error code it was refused with. */
const outcomesOf = (outcomes: PromiseSettledResult<unknown>[]) => outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'sent' : (outcome.reason as ApiError).code));

/** The IDs of the messages a log holds, in its order. */
const loggedMessages = (log: MemoryLog) => log.entries.flatMap(({ changes }) => changes.filter(([table]) => table === 'messages').map(([, key]) => key));

test('a send failing after a change in a realm with a log rolls its batch back whole: the log is given nothing of it, and the realm stays', async () => {
  const { log, actor, send, close } = await heldRealm();
  const saveMessage = Store.prototype.saveMessage;
  try {
    // The bug: storing this message throws, after its ID and recipients' rows were written.
    Store.prototype.saveMessage = function (this: Store, message: MessageRecord, before?: MessageRecord) {
      if (message.content === 'spoiled') throw new Error('a bug');
      saveMessage.call(this, message, before);
    };
    // Asked in the same turn, the three share a batch; sends run in the batch's transaction itself.
    const outcomes = await Promise.allSettled([send('first'), send('spoiled'), send('last')]);
    Store.prototype.saveMessage = saveMessage;
    assert.equal(outcomesOf(outcomes), ['ROLLED_BACK', 'INTERNAL_SERVER_ERROR', 'ROLLED_BACK']);
    await actor.idle();
    assert.equal(loggedMessages(log), [], 'the log was given nothing of the batch');
    assert.not.ok(log.refusing, 'the realm was not given up');
    const again = await Promise.all([send('first'), send('last')]);
    assert.equal(loggedMessages(log), again.map(({ id }) => id), 'sent again, both are logged');
  } finally {
    Store.prototype.saveMessage = saveMessage;
    await close();
  }
});

test("a send wanting more IDs than its realm's block has left is refused before its first change, alone; the realm's next block holds them", async () => {
  const counters = new MemoryIdCounters();
  const blocks = new IdBlocks(counters);
  // With a push relay, a message may queue a notification per push route of each recipient.
  const { hamletId, store, log, actor, send, close } = await heldRealm({ pushRelay: { url: 'http://127.0.0.1:9', credentials: 'server-uuid:server-api-key', timeoutMs: 300 } }, blocks);
  try {
    await blocks.topUp(1);
    const ids = blocks.sourceFor(1);
    const verona = [...store.channels.ofRealm(1)].find((channel) => channel.name === 'Verona')!;
    const subscribers = await actor.ask('channels.members', hamletId, { channelId: verona.id });
    // What a plain message to Verona may take, and no more, is left; the cluster is out of reach,
    // so the realm cannot top its block up before the sends.
    const plain = 2 * subscribers.length;
    for (;;) {
      try {
        ids.ensure('notification', plain + 1);
      } catch {
        break;
      }
      ids.next('notification');
    }
    counters.unreachable = true;
    const mentioning = '@**Othello, the Moor of Venice** wants one more';
    const outcomes = await Promise.allSettled([send('plain'), send(mentioning), send('plain too')]);
    assert.equal(outcomesOf(outcomes), ['sent', 'SERVER_BUSY', 'sent']);
    await actor.idle();
    const sent = [outcomes[0], outcomes[2]].map((outcome) => (outcome as PromiseFulfilledResult<{ id: number }>).value.id);
    assert.equal(loggedMessages(log), sent, 'the log holds the two sent');
    counters.unreachable = false;
    const again = await send(mentioning);
    assert.equal(loggedMessages(log), [...sent, again.id], 'sent again once the realm took a new block');
  } finally {
    await close();
  }
});

test.run();
