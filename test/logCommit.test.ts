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
import type { IdKind } from '../src/store/idCounters.js';
import { IdBlocks } from '../src/cluster/ids.js';
import type { IdSupply } from '../src/realm/log.js';
import { MemoryIdCounters } from './helpers/memoryIdCounters.js';
import { MemoryLog } from './helpers/memoryLog.js';
import { startTestServer, waitFor, type TestServer } from './helpers/server.js';

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

/** The demo realm's actor on a HeldStore, with a log in memory (and IDs from `ids`, as a cluster's),
 * after `prepare` had the server. */
async function heldRealm({ ids, prepare }: { ids?: IdSupply; prepare?: (server: TestServer) => Promise<void> } = {}) {
  const server = await startTestServer();
  await prepare?.(server);
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
      actor.stopTimers();
      await actor.notificationsSettled();
      await actor.idle();
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

/** Takes a realm's IDs of a kind, as its other writes would, until `left` are left. */
function leaveOnly(blocks: IdBlocks, kind: IdKind, left: number): void {
  const ids = blocks.sourceFor(1);
  for (;;) {
    try {
      ids.ensure(kind, left + 1);
    } catch {
      return;
    }
    ids.next(kind);
  }
}

/** A realm whose IDs come in blocks from counters in memory, with an outgoing-webhook bot Echo:
 * a message mentioning Echo takes a notification ID (its delivery). */
async function blockedRealm() {
  const counters = new MemoryIdCounters();
  const blocks = new IdBlocks(counters);
  const realm = await heldRealm({
    ids: blocks,
    prepare: async (server) => {
      const iago = await server.as('iago@zulip.com');
      const created = await iago.post('/bots', { full_name: 'Echo', short_name: 'echo', bot_type: 3, payload_url: JSON.stringify('http://127.0.0.1:9/hook'), interface_type: 1 });
      assert.is(created.status, 200);
    },
  });
  await blocks.topUp(1);
  return { ...realm, counters, blocks };
}

test("a send wanting more IDs than its realm's blocks have left is refused before its first change, alone; once the realm takes a block it goes", async () => {
  const { log, actor, send, counters, blocks, close } = await blockedRealm();
  try {
    // One notification ID is left, and the cluster is out of reach: no block comes before the sends.
    leaveOnly(blocks, 'notification', 1);
    counters.unreachable = true;
    const outcomes = await Promise.allSettled([send('@**Echo** one'), send('@**Echo** two'), send('no mention')]);
    // The second would run out of IDs after its first put; refused before it, it spoils nothing.
    assert.equal(outcomesOf(outcomes), ['sent', 'SERVER_BUSY', 'sent']);
    await actor.idle();
    const sent = [outcomes[0], outcomes[2]].map((outcome) => (outcome as PromiseFulfilledResult<{ id: number }>).value.id);
    assert.equal(loggedMessages(log), sent, 'the log holds the two sent');
    counters.unreachable = false;
    const again = await send('@**Echo** two');
    assert.equal(loggedMessages(log), [...sent, again.id], 'sent again once the realm took a block');
  } finally {
    await close();
  }
});

test("a realm taking IDs over the network is idle once the write that waited for them is durable", async () => {
  const { log, actor, send, counters, blocks, close } = await blockedRealm();
  try {
    leaveOnly(blocks, 'message', 1);
    counters.delayMs = 100;
    // The mailbox's loop takes a block before the write runs; idle() waited on the last write,
    // settled already, in a loop of microtasks that never let the block's read come back (a drain
    // at SIGTERM hung so).
    const sending = send('after a block');
    await actor.idle();
    const { id } = await sending;
    assert.equal(loggedMessages(log).at(-1), id, 'the write idle() waited for is in the log');
  } finally {
    await close();
  }
});

test("a direct message to Welcome Bot takes the IDs of its answer too, before its first change", async () => {
  const { hamletId, store, actor, send, counters, blocks, close } = await blockedRealm();
  try {
    // One message ID is left: the message and Welcome Bot's answer (one write) need two.
    leaveOnly(blocks, 'message', 1);
    counters.unreachable = true;
    const welcomeBot = store.realms.get(1)!.welcomeBotId!;
    const direct = actor.ask('messages.send', hamletId, { type: 'private', to: [welcomeBot], topic: null, content: 'help', readBySender: true, client: 'test' });
    assert.equal(outcomesOf(await Promise.allSettled([direct, send('beside it')])), ['SERVER_BUSY', 'sent']);
  } finally {
    await close();
  }
});

test.run();
