// A write refused after it changed its realm's memory (a command that checks as it goes) is rolled
// back in LMDB, and the realm's memory is reloaded. Writes of the realm asked before the refusal
// was known must not run against the memory it left: one that did would store what refers to
// nothing stored (a message to a channel that was never created).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../src/errors.js';
import { SearchIndex } from '../src/store/searchIndex.js';
import { IN_MEMORY, startTestServer, waitFor } from './helpers/server.js';

test('writes asked with one that is refused after changing memory are refused too, and store nothing of what it rolled back', async () => {
  const server = await startTestServer(IN_MEMORY);
  try {
    const iago = await server.as('iago@zulip.com');
    const iagoId = Number((await iago.get('/users/me')).body.user_id);
    const realm = server.parley.realms.forHost('')!;
    const newChannel = { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: null, messageRetentionDays: null, topicsPolicy: 'inherit' as const, permissions: {} };
    // Joining 'fresh' creates it (memory and LMDB); leaving a channel that does not exist then
    // refuses the whole command. Asked in the same turn, the send runs after it in the same batch.
    const outcomes = await Promise.allSettled([
      realm.ask('subscriptions.update', iagoId, {
        add: { subscriptions: [{ name: 'fresh' }], principals: null, authorizationErrorsFatal: true, isDefaultStream: false, announce: false, newChannel },
        remove: { names: ['no such channel'], principals: null },
      }),
      realm.ask('messages.send', iagoId, { type: 'stream', to: ['fresh'], topic: 'hello', content: 'into a channel that is not there', readBySender: true, client: 'test' }),
    ]);
    const answers = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 200 : outcome.reason instanceof ApiError ? `${outcome.reason.status} ${outcome.reason.code}` : String(outcome.reason)));
    assert.equal(answers, ['400 BAD_REQUEST', '503 ROLLED_BACK']);
    const channel = await iago.get('/get_stream_id', { stream: 'fresh' });
    assert.is(channel.status, 400, 'the channel was rolled back');
    const searched = await iago.get('/messages', { narrow: [{ operator: 'search', operand: 'channel that is not there' }], anchor: 'newest', num_before: 10, num_after: 0 });
    assert.equal(searched.body.messages, [], 'nothing was stored of the send');
    // Tried again, the send is refused as a send to a channel that does not exist.
    const again = await iago.post('/messages', { type: 'stream', to: 'fresh', topic: 'hello', content: 'again' });
    assert.is(again.status, 400);
  } finally {
    await server.stop();
  }
});

test("a batch whose postings cannot be put is rolled back whole: a write asked meanwhile does not run against what its writes left", async () => {
  const server = await startTestServer(IN_MEMORY);
  const flush = SearchIndex.prototype.flush;
  try {
    const iago = await server.as('iago@zulip.com');
    const iagoId = Number((await iago.get('/users/me')).body.user_id);
    const realm = server.parley.realms.forHost('')!;
    const newChannel = { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: null, messageRetentionDays: null, topicsPolicy: 'inherit' as const, permissions: {} };
    let send: Promise<unknown> | undefined;
    let armed = true;
    // The map is full when the batch's postings are put, after the update ran; the send is asked
    // then, and may run in the next batch before the update's refusal arrives.
    SearchIndex.prototype.flush = function (this: SearchIndex) {
      if (!armed) return flush.call(this);
      armed = false;
      setImmediate(() => (send = realm.ask('messages.send', iagoId, { type: 'stream', to: ['fresh'], topic: 'hello', content: 'into a channel that is not there', readBySender: true, client: 'test' })));
      throw Object.assign(new Error('MDB_MAP_FULL: Environment mapsize limit reached'), { code: -30792 });
    };
    const joined = await realm
      .ask('subscriptions.update', iagoId, { add: { subscriptions: [{ name: 'fresh' }], principals: null, authorizationErrorsFatal: true, isDefaultStream: false, announce: false, newChannel }, remove: null })
      .then(() => 200, (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.code}` : String(error)));
    assert.is(joined, '507 STORAGE_UNAVAILABLE');
    await waitFor(() => send !== undefined);
    const sent = await send!.then(() => 200, (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.code}` : String(error)));
    // Its realm learned of the rollback inside the batch: the send waits for memory to be
    // reloaded, and finds no such channel.
    assert.is(sent, '400 STREAM_DOES_NOT_EXIST');
    assert.is((await iago.get('/get_stream_id', { stream: 'fresh' })).status, 400, 'the channel was rolled back');
  } finally {
    SearchIndex.prototype.flush = flush;
    await server.stop();
  }
});

test.run();
