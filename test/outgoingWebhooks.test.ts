// Outgoing-webhook bots through HTTP, with a bot service on 127.0.0.1 (allowed by the operator's
// PARLEY_OUTGOING_WEBHOOK_ALLOW): a mention or a direct message reaches the service in Zulip's or
// Slack's interface, the answer is the bot's reply; failures reach the conversation and the owner;
// retries with the server's clock; a restart loses no delivery; sending never waits; and a URL on
// the server's own network is refused unless allowed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { BotService, type Answer } from './helpers/botService.js';
import { TestClock } from './helpers/clock.js';
import { nextSettlement, settlements, until } from './helpers/notifier.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { postedBy, type Posted } from './helpers/webhooks.js';

const outgoing = suite<{ server: TestServer; service: BotService; clock: TestClock }>('outgoing webhooks');

outgoing.before(async (context) => {
  context.clock = new TestClock();
  context.service = await BotService.start();
  context.server = await startTestServer({ clock: context.clock, outgoingWebhooks: { allow: ['127.0.0.1'], timeoutMs: 2000 } });
});
outgoing.after(async ({ server, service }) => {
  await server.stop();
  await service.stop();
});
outgoing.before.each(({ service }) => {
  service.received.length = 0;
  service.answers = [{ body: { content: 'pong' } }];
});

let bots = 0;
async function serviceBot(owner: ApiClient, url: string, interfaceType = 1): Promise<{ id: number; name: string; token: string; email: string }> {
  const name = `Service ${++bots}`;
  const created = await owner.post('/bots', { full_name: name, short_name: `service${bots}`, bot_type: 3, payload_url: JSON.stringify(url), interface_type: interfaceType });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const id = Number(created.body.user_id);
  const listed = (await owner.post('/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as { user_id: number; email: string; services: { token: string }[] }[];
  const bot = listed.find((candidate) => candidate.user_id === id)!;
  return { id, name, token: bot.services[0]!.token, email: bot.email };
}

/** Waits until the sender has posted `count` messages, and answers them. */
async function repliesOf(reader: ApiClient, senderId: number, count: number): Promise<Posted[]> {
  let posted: Posted[] = [];
  await until(async () => (posted = await postedBy(reader, senderId, count + 1)).length >= count);
  return posted;
}

const topic = (() => {
  let count = 0;
  return () => `bot topic ${++count}`;
})();

outgoing("a mention posts Zulip's payload to the bot's URL and the answer is the bot's reply in the same topic", async ({ server, service }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const bot = await serviceBot(hamlet, service.url);
  const where = topic();
  const sent = await othello.post('/messages', { type: 'stream', to: 'Verona', topic: where, content: `@**${bot.name}** ping **now**` });
  assert.is(sent.status, 200);
  const [request] = await service.waitFor(1);
  assert.is(request!.contentType, 'application/json');
  const payload = JSON.parse(request!.body) as { data: string; token: string; trigger: string; bot_email: string; bot_full_name: string; message: Record<string, unknown> };
  assert.equal([payload.data, payload.token, payload.trigger, payload.bot_email, payload.bot_full_name], [`@**${bot.name}** ping **now**`, bot.token, 'mention', bot.email, bot.name]);
  assert.equal([payload.message.id, payload.message.subject, payload.message.display_recipient, payload.message.content], [sent.body.id, where, 'Verona', `@**${bot.name}** ping **now**`]);
  assert.match(String(payload.message.rendered_content), /<strong>now<\/strong>/);
  const [reply] = await repliesOf(othello, bot.id, 1);
  assert.equal([reply!.topic, reply!.content, reply!.type, reply!.client], [where, 'pong', 'stream', 'OutgoingWebhookResponse']);
});

outgoing('a direct message to the bot is posted with trigger direct_message; response_string answers it in the conversation', async ({ server, service }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await serviceBot(hamlet, service.url);
  service.answers = [{ body: { response_string: 'hello back' } }];
  assert.is((await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'hello bot' })).status, 200);
  const [request] = await service.waitFor(1);
  assert.is((JSON.parse(request!.body) as { trigger: string }).trigger, 'direct_message');
  const [reply] = await repliesOf(hamlet, bot.id, 1);
  assert.equal([reply!.type, reply!.content], ['private', 'hello back']);
});

outgoing('response_not_required and an empty answer post nothing; a message that does not mention the bot is not sent', async ({ server, service }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await serviceBot(hamlet, service.url);
  service.answers = [{ body: { response_not_required: true } }, { body: '' }];
  const before = await settlements(server);
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: 'no mention here' });
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** one` });
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** two` });
  await service.waitFor(2);
  await until(async () => (await settlements(server)) >= before + 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(service.received.length, 2);
  assert.equal(await postedBy(hamlet, bot.id), []);
});

outgoing("Slack's interface posts form fields and reads `text`; it has no direct messages", async ({ server, service }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await serviceBot(hamlet, service.url, 2);
  service.answers = [{ body: { text: 'from slack' } }];
  const where = topic();
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: where, content: `@**${bot.name}** hi` });
  const [request] = await service.waitFor(1);
  assert.is(request!.contentType, 'application/x-www-form-urlencoded');
  const form = new URLSearchParams(request!.body);
  assert.equal([form.get('token'), form.get('text'), form.get('trigger_word'), form.get('channel_name')], [bot.token, `@**${bot.name}** hi`, 'mention', 'Verona']);
  const [reply] = await repliesOf(hamlet, bot.id, 1);
  assert.equal([reply!.topic, reply!.content], [where, 'from slack']);
  await hamlet.post('/messages', { type: 'direct', to: JSON.stringify([bot.id]), content: 'dm' });
  const [, failure] = await repliesOf(hamlet, bot.id, 2);
  assert.is(failure!.content, "Failure! Slack outgoing webhooks don't support direct messages.");
  assert.is(service.received.length, 1);
});

outgoing("an error status fails in the conversation and tells the bot's owner, with the status", async ({ server, service }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const bot = await serviceBot(cordelia, service.url);
  service.answers = [{ status: 500, body: { oops: true } }];
  await cordelia.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** break` });
  const [failure] = await repliesOf(cordelia, bot.id, 1);
  assert.is(failure!.content, 'Failure! Third party responded with 500');
  const notices = (await cordelia.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages as { content: string; sender_full_name: string }[];
  const notice = notices.find((message) => message.content.includes('triggered an outgoing webhook'));
  assert.ok(notice, 'the owner is told');
  assert.match(notice!.content, /status code \*500\*/);
});

outgoing("what one service answers never stops another's delivery: a NUL in an error body, a URL written in capitals", async ({ server, service }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const upper = await serviceBot(cordelia, service.url.replace('http://', 'HTTP://'));
  const listed = (await cordelia.post('/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as { user_id: number; services: { base_url: string }[] }[];
  assert.is(listed.find((bot) => bot.user_id === upper.id)!.services[0]!.base_url, service.url, 'stored as parsed');
  const broken = await serviceBot(cordelia, service.url);
  const healthy = await serviceBot(cordelia, service.url);
  const cases: [typeof broken, Answer, string][] = [
    [broken, { status: 500, raw: 'oops\u0000' }, 'Failure! Third party responded with 500'],
    [healthy, { body: { content: 'fine' } }, 'fine'],
    [upper, { body: { content: 'upper' } }, 'upper'],
  ];
  for (const [bot, answer, replied] of cases) {
    service.answers = [answer];
    await cordelia.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** go` });
    assert.is((await repliesOf(cordelia, bot.id, 1))[0]!.content, replied);
  }
});

outgoing('sending never waits for the service: the message is answered and delivered while the service hangs', async ({ server, service }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await serviceBot(hamlet, service.url);
  service.answers = ['hang'];
  const sent = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** slow` });
  assert.is(sent.status, 200);
  await service.waitFor(1);
  const mine = await hamlet.get(`/messages/${Number(sent.body.id)}`);
  assert.is(mine.status, 200);
  assert.equal(await postedBy(hamlet, bot.id), []);
  service.release({ content: 'finally' });
  const [reply] = await repliesOf(hamlet, bot.id, 1);
  assert.is(reply!.content, 'finally');
});

outgoing('an unreachable service is tried again with backoff, then the bot is unavailable', async ({ server, service, clock }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const down = await BotService.start();
  const url = down.url;
  await down.stop();
  const bot = await serviceBot(hamlet, url);
  let passes = await settlements(server);
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** anyone?` });
  for (let attempt = 1; attempt < 4; attempt++) {
    await nextSettlement(server, passes);
    passes = await settlements(server);
    assert.equal(await postedBy(hamlet, bot.id), [], `no failure before the last try (try ${attempt})`);
    clock.advance(60_000);
  }
  const [failure] = await repliesOf(hamlet, bot.id, 1);
  assert.is(failure!.content, 'Failure! Bot is unavailable');
  assert.is(service.received.length, 0);
});

outgoing("a URL on the server's own network is refused where the operator has not allowed it", async ({ service }) => {
  const guarded = await startTestServer({ outgoingWebhooks: { allow: [], timeoutMs: 2000 } });
  try {
    const hamlet = await guarded.as('hamlet@zulip.com');
    // Loopback only: a test never sends to another address, even one the server should refuse.
    for (const url of [service.url, `http://localhost:${service.port}/bot`, `http://0.0.0.0:${service.port}/bot`, 'http://[::1]:1/']) {
      const bot = await serviceBot(hamlet, url);
      await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: topic(), content: `@**${bot.name}** fetch` });
      const [failure] = await repliesOf(hamlet, bot.id, 1);
      assert.is(failure!.content, 'Failure! Bot is unavailable', url);
    }
    const notices = (await hamlet.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages as { content: string }[];
    assert.match(notices[0]!.content, /private or disallowed network/);
    assert.is(service.received.length, 0, 'nothing reached the service');
  } finally {
    await guarded.stop();
  }
});

outgoing('a delivery waiting when the server stops is made after a restart', async () => {
  const clock = new TestClock();
  const down = await BotService.start();
  const port = down.port;
  await down.stop();
  const first = await startTestServer({ clock, outgoingWebhooks: { allow: ['127.0.0.1'], timeoutMs: 2000 } });
  const hamlet = await first.as('hamlet@zulip.com');
  const bot = await serviceBot(hamlet, `http://127.0.0.1:${port}/bot`);
  const before = await settlements(first);
  await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'after restart', content: `@**${bot.name}** later` });
  await nextSettlement(first, before);
  await first.parley.close();
  const service = await BotService.start(port);
  const second = await startTestServer({ clock, dataDir: first.config.dataDir, outgoingWebhooks: { allow: ['127.0.0.1'], timeoutMs: 2000 } });
  try {
    clock.advance(60_000);
    await service.waitFor(1);
    const [reply] = await repliesOf(await second.as('hamlet@zulip.com'), bot.id, 1);
    assert.equal([reply!.topic, reply!.content], ['after restart', 'pong']);
  } finally {
    await second.stop();
    await service.stop();
  }
});

outgoing.run();
