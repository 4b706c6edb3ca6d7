// Deleting a topic of 1,001 messages in batches: a request out of its time budget answers
// complete: false, having deleted the newest 1,000; repeating finishes the job. Sending the 1,001
// messages takes seconds, so this is here rather than beside test/deleteTopic.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from '../helpers/assert.js';
import { startTestServer } from '../helpers/server.js';

test('delete topic in batches: a request out of time answers complete: false; repeating finishes the job', async () => {
  const server = await startTestServer({ deleteTopicBudgetMs: 0 });
  try {
    const iago = await server.as('iago@zulip.com');
    await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Big topics' }] });
    const id = Number((await iago.get('/get_stream_id', { stream: 'Big topics' })).body.stream_id);
    const inBig = async (): Promise<number> =>
      ((await iago.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [['channel', id], ['topic', 'big']] })).body.messages as unknown[]).length;
    // 1,001 messages, 50 requests at a time: their order within the topic does not matter here.
    for (let sent = 0; sent < 1001; sent += 50) {
      const batch = Array.from({ length: Math.min(50, 1001 - sent) }, () => iago.post('/messages', { type: 'stream', to: id, topic: 'big', content: 'in big' }));
      assert.ok((await Promise.all(batch)).every((response) => response.status === 200));
    }
    const first = await iago.post(`/streams/${id}/delete_topic`, { topic_name: 'big' });
    assert.equal(first.body.complete, false, 'one batch of 1,000, then the budget was spent');
    assert.is(await inBig(), 1, 'the oldest is left: batches go newest first');
    assert.equal((await iago.post(`/streams/${id}/delete_topic`, { topic_name: 'big' })).body.complete, true);
    assert.is(await inBig(), 0);
    await assertRequiresCredentials(server.anonymous, [['POST', `/streams/${id}/delete_topic`]]);
  } finally {
    await server.stop();
  }
});

test.run();
