// A missed-message e-mail tells of at most 500 messages (the rest of test/missedEmails.test.ts is
// in `npm test`): sending 502 direct messages takes seconds, so this one is here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClock } from '../helpers/clock.js';
import { nextSettlement, settlements } from '../helpers/notifier.js';
import { startTestServer } from '../helpers/server.js';
import { FakeSmtp } from '../helpers/smtp.js';

test('one e-mail tells of at most 500 messages', async () => {
  const smtp = await FakeSmtp.start();
  const clock = new TestClock();
  const server = await startTestServer({ clock, mail: { url: smtp.url, from: 'Parley Notifications <noreply@parley.test>' } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const desdemonaId = Number((await (await server.as('desdemona@zulip.com')).get('/users/me')).body.user_id);
    for (let i = 1; i <= 502; i++) {
      const sent = await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([desdemonaId]), content: `note ${i}` });
      assert.is(sent.status, 200, JSON.stringify(sent.body));
    }
    // Past the default batching period (120 s), once the notifier's pass is recorded.
    const before = await settlements(server);
    clock.advance(120_000);
    await nextSettlement(server, before);
    const text = smtp.to('desdemona@zulip.com').at(-1)!.parsed.text ?? '';
    assert.is(text.match(/King Hamlet: note \d+/g)?.length, 500);
    assert.match(text, /King Hamlet: note 500\n/);
    assert.not.match(text, /note 501/);
  } finally {
    await server.stop();
    await smtp.close();
  }
});

test.run();
