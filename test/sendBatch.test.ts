// Sends share their batch's transaction (they check everything before their first change, so they
// run without a child transaction of their own): should one fail after changing the batch anyway
// (a bug, injected here), nothing of the batch is kept, announced or left in memory; the other
// sends of the batch are answered 503 ROLLED_BACK and kept when tried again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../src/errors.js';
import { Store } from '../src/store/store.js';
import type { MessageRecord } from '../src/messages/records.js';
import { pollEvents, register } from './helpers/events.js';
import { capturedLog } from './helpers/logs.js';
import { startTestServer } from './helpers/server.js';

test('a send failing after its first change rolls back its batch: the other sends are answered 503 and kept when tried again; nothing of it is stored or announced', async () => {
  const { log, lines: logged } = capturedLog<{ msg: string; command?: string; err?: { message: string } }>('warn');
  const server = await startTestServer({ log });
  const saveMessage = Store.prototype.saveMessage;
  try {
    const iago = await server.as('iago@zulip.com');
    const hamlet = await server.as('hamlet@zulip.com');
    const iagoId = Number((await iago.get('/users/me')).body.user_id);
    const { queueId } = await register(hamlet, { event_types: ['message'] });
    const realm = server.parley.realms.forHost('')!;
    const send = (content: string) => realm.ask('messages.send', iagoId, { type: 'stream', to: ['Verona'], topic: 'batch', content, readBySender: true, client: 'test' });
    // The bug: storing this message throws, after its ID and recipients' rows were written.
    Store.prototype.saveMessage = function (this: Store, message: MessageRecord, before?: MessageRecord) {
      if (message.content === 'spoiled') throw new Error('a bug');
      saveMessage.call(this, message, before);
    };
    // Asked in the same turn, the three share a batch.
    const outcomes = await Promise.allSettled([send('first'), send('spoiled'), send('last')]);
    const answers = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 200 : outcome.reason instanceof ApiError ? `${outcome.reason.status} ${outcome.reason.code}` : String(outcome.reason)));
    assert.equal(answers, ['503 ROLLED_BACK', '500 INTERNAL_SERVER_ERROR', '503 ROLLED_BACK']);
    Store.prototype.saveMessage = saveMessage;
    const first = await send('first');
    const last = await send('last');
    // (The log is written a turn later.)
    assert.equal(
      logged.map(({ msg, command, err }) => [msg, command, err?.message]),
      [['command failed', 'messages.send', 'a bug']],
      'the bug is logged, once',
    );

    const fetched = await hamlet.get('/messages', { narrow: [{ operator: 'topic', operand: 'batch' }], anchor: 'newest', num_before: 10, num_after: 0 });
    assert.equal(
      (fetched.body.messages as { id: number; content: string }[]).map(({ id, content }) => [id, content]),
      [
        [first.id, '<p>first</p>'],
        [last.id, '<p>last</p>'],
      ],
    );
    const events = await pollEvents(hamlet, queueId, 2);
    assert.equal(
      events.map((event) => (event.message as { id: number }).id),
      [first.id, last.id],
    );
    const more = await hamlet.get('/events', { queue_id: queueId, last_event_id: events.at(-1)!.id, dont_block: true });
    assert.equal(more.body.events, [], 'nothing of the rolled-back batch was announced');
    const unread = await hamlet.get('/messages', { narrow: [{ operator: 'is', operand: 'unread' }, { operator: 'topic', operand: 'batch' }], anchor: 'newest', num_before: 10, num_after: 0 });
    assert.equal((unread.body.messages as { id: number }[]).map(({ id }) => id), [first.id, last.id], "the recipients' rows hold only the kept messages");
  } finally {
    Store.prototype.saveMessage = saveMessage;
    await server.stop();
  }
});

test.run();
