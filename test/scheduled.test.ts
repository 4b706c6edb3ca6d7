// Scheduled messages (spec endpoint 3 and the rest): the rules of scheduling and editing, delivery
// at the scheduled time as a normal message, the lifecycle (scheduled → sent, scheduled → failed,
// failed → scheduled only with a new time), delivery across a restart, and the events that keep the
// sender's clients in step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { until } from './helpers/notifier.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';
import type { MessageRecord } from '../src/messages/records.js';
import { StorageError, Store } from '../src/store/store.js';
import { TestClock } from './helpers/clock.js';

const scheduled = suite<{ server: TestServer }>('scheduled messages');
/** The suite's server runs on this clock: a message comes due when the test moves it. */
const clock = new TestClock();

scheduled.before(async (context) => {
  context.server = await startTestServer({ clock });
});
scheduled.after(async ({ server }) => server.stop());

type Scheduled = { scheduled_message_id: number; type: string; to: number | number[]; topic?: string; content: string; rendered_content: string; scheduled_delivery_timestamp: number; failed: boolean };

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
const channelId = async (client: ApiClient, name: string): Promise<number> => Number((await client.get('/get_stream_id', { stream: name })).body.stream_id);
const inSeconds = (seconds: number): number => Math.floor(clock.now() / 1000) + seconds;
const list = async (client: ApiClient): Promise<Scheduled[]> => {
  const response = await client.get('/scheduled_messages');
  assertMatchesReference('GET /scheduled_messages', response.body);
  return response.body.scheduled_messages as Scheduled[];
};
async function schedule(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/scheduled_messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /scheduled_messages', response.body);
  return Number(response.body.scheduled_message_id);
}
async function expectError(response: Promise<{ status: number; body: Record<string, unknown> }>, code: string, msg: RegExp, operation?: string): Promise<void> {
  const { status, body } = await response;
  assert.is(status, 400, JSON.stringify(body));
  assert.is(body.code, code);
  assert.match(String(body.msg), msg);
  if (operation) assertMatchesReference(operation, body, {}, 400);
}
async function createChannel(admin: ApiClient, name: string): Promise<number> {
  await admin.post('/users/me/subscriptions', { subscriptions: [{ name }] });
  return channelId(admin, name);
}

scheduled('channel and direct messages are scheduled, listed by delivery time, with Zulip\'s types and addressees', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = await channelId(hamlet, 'Verona');
  const othello = await idOf(await server.as('othello@zulip.com'));
  const iago = await idOf(await server.as('iago@zulip.com'));
  const me = await idOf(hamlet);
  const later = await schedule(hamlet, { type: 'channel', to: verona, topic: 'plans', content: '**later**', scheduled_delivery_timestamp: inSeconds(7200) });
  const sooner = await schedule(hamlet, { type: 'direct', to: [othello, iago], content: 'sooner', scheduled_delivery_timestamp: inSeconds(3600) });
  const self = await schedule(hamlet, { type: 'private', to: [me], content: 'note to self', scheduled_delivery_timestamp: inSeconds(5400) });
  const byLegacyName = await schedule(hamlet, { type: 'stream', to: [verona], topic: '(no topic)', content: 'general', scheduled_delivery_timestamp: inSeconds(9000) });
  const mine = await list(hamlet);
  assert.equal(mine.map((message) => message.scheduled_message_id), [sooner, self, later, byLegacyName]);
  const [direct, toSelf, channel, general] = mine as [Scheduled, Scheduled, Scheduled, Scheduled];
  assert.equal(direct, { scheduled_message_id: sooner, type: 'private', to: [othello, iago].sort((a, b) => a - b), content: 'sooner', rendered_content: '<p>sooner</p>', scheduled_delivery_timestamp: direct.scheduled_delivery_timestamp, failed: false });
  assert.equal(toSelf.to, [me]);
  assert.equal({ type: channel.type, to: channel.to, topic: channel.topic, rendered: channel.rendered_content }, { type: 'stream', to: verona, topic: 'plans', rendered: '<p><strong>later</strong></p>' });
  assert.is(general.topic, '', '(no topic) reads as the empty topic');
  assert.equal(await list(await server.as('othello@zulip.com')), [], 'only the sender sees them');
});

scheduled('scheduling is checked as sending is, and the time must be in the future', async ({ server }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const verona = await channelId(cordelia, 'Verona');
  const future = inSeconds(3600);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: verona, topic: 't', content: 'x', scheduled_delivery_timestamp: inSeconds(-10) }), 'BAD_REQUEST', /must be in the future/);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: 99999, topic: 't', content: 'x', scheduled_delivery_timestamp: future }), 'STREAM_DOES_NOT_EXIST', /99999/, 'POST /scheduled_messages');
  const missing = await cordelia.post('/scheduled_messages', { type: 'stream', to: 99999, topic: 't', content: 'x', scheduled_delivery_timestamp: future });
  assert.is(missing.body.stream_id, 99999);
  await expectError(cordelia.post('/scheduled_messages', { type: 'direct', to: [99999], content: 'x', scheduled_delivery_timestamp: future }), 'BAD_REQUEST', /Invalid user ID 99999/);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: [verona, verona + 1], topic: 't', content: 'x', scheduled_delivery_timestamp: future }), 'BAD_REQUEST', /channel/);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: verona, content: 'x', scheduled_delivery_timestamp: future }), 'BAD_REQUEST', /topic/i);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: verona, topic: 't', content: '  ', scheduled_delivery_timestamp: future }), 'BAD_REQUEST', /empty/);
  await expectError(cordelia.post('/scheduled_messages', { type: 'stream', to: verona, topic: 't\u0000', content: 'x', scheduled_delivery_timestamp: future }), 'BAD_REQUEST', /null/);
  const missingParam = await cordelia.post('/scheduled_messages', { type: 'stream', to: verona, topic: 't', content: 'x' });
  assert.is(missingParam.body.code, 'REQUEST_VARIABLE_MISSING');
  const { max_message_length: maxLength } = (await register(cordelia, { fetch_event_types: ['realm'] })).state as { max_message_length: number };
  const long = await schedule(cordelia, { type: 'stream', to: verona, topic: 't', content: 'y'.repeat(maxLength + 50), scheduled_delivery_timestamp: future });
  const stored = (await list(cordelia)).find((message) => message.scheduled_message_id === long)!;
  assert.is([...stored.content].length, maxLength, 'content is held to max_message_length');
  assert.equal((await list(cordelia)).length, 1, 'refused requests stored nothing');
});

scheduled('edits: every rule of endpoint 3', async ({ server }) => {
  const othelloClient = await server.as('othello@zulip.com');
  const iagoClient = await server.as('iago@zulip.com');
  const verona = await channelId(othelloClient, 'Verona');
  const hamlet = await idOf(await server.as('hamlet@zulip.com'));
  const id = await schedule(othelloClient, { type: 'stream', to: verona, topic: 'old', content: 'old', scheduled_delivery_timestamp: inSeconds(3600) });
  const path = `/scheduled_messages/${id}`;
  await expectError(othelloClient.patch(path, {}), 'BAD_REQUEST', /Nothing to change/);
  await expectError(othelloClient.patch(path, { type: 'direct' }), 'BAD_REQUEST', /Recipient required/);
  await expectError(othelloClient.patch(path, { type: 'channel', to: verona }), 'BAD_REQUEST', /Topic required/);
  await expectError(othelloClient.patch(path, { scheduled_delivery_timestamp: inSeconds(-5) }), 'BAD_REQUEST', /must be in the future/);
  await expectError(othelloClient.patch('/scheduled_messages/99999', { content: 'x' }), 'BAD_REQUEST', /Scheduled message does not exist/);
  await expectError(iagoClient.patch(path, { content: 'x' }), 'BAD_REQUEST', /Scheduled message does not exist/);
  await expectError(othelloClient.patch(path, { type: 'stream', to: 99999, topic: 't' }), 'STREAM_DOES_NOT_EXIST', /99999/, 'PATCH /scheduled_messages/{scheduled_message_id}');
  await expectError(othelloClient.patch(path, { type: 'direct', to: [99999] }), 'BAD_REQUEST', /Invalid user ID 99999/);
  let [current] = await list(othelloClient);
  assert.equal({ topic: current!.topic, content: current!.content }, { topic: 'old', content: 'old' }, 'refused edits changed nothing');

  const edited = await othelloClient.patch(path, { content: 'new *content*', topic: 'new topic' });
  assertMatchesReference('PATCH /scheduled_messages/{scheduled_message_id}', edited.body);
  [current] = await list(othelloClient);
  assert.equal({ topic: current!.topic, content: current!.content, rendered: current!.rendered_content }, { topic: 'new topic', content: 'new *content*', rendered: '<p>new <em>content</em></p>' });
  await othelloClient.patch(path, { topic: 'general chat' });
  assert.is((await list(othelloClient))[0]!.topic, '', 'the empty-topic display name reads as the empty topic');

  await othelloClient.patch(path, { type: 'direct', to: [hamlet] });
  [current] = await list(othelloClient);
  assert.equal({ type: current!.type, to: current!.to, topic: current!.topic }, { type: 'private', to: [hamlet], topic: undefined });
  await othelloClient.patch(path, { topic: 'ignored for direct messages' });
  assert.is((await list(othelloClient))[0]!.topic, undefined);

  // Made a channel message again, it needs a topic that is not empty, "(no topic)" or the display name.
  for (const topic of ['', '(no topic)', 'general chat']) {
    await expectError(othelloClient.patch(path, { type: 'channel', to: verona, topic }), 'BAD_REQUEST', /Topic can't be empty/);
  }
  // Where the channel requires topics, a topic edit may not empty it either.
  const strict = await createChannel(iagoClient, 'strict topics');
  await iagoClient.patch(`/streams/${strict}`, { topics_policy: 'disable_empty_topic' });
  await othelloClient.post('/users/me/subscriptions', { subscriptions: [{ name: 'strict topics' }] });
  assert.is((await othelloClient.patch(path, { type: 'channel', to: strict, topic: 'agenda' })).status, 200);
  for (const topic of ['', '(no topic)', 'general chat']) {
    await expectError(othelloClient.patch(path, { topic }), 'BAD_REQUEST', /general chat is not allowed/);
  }
  const later = inSeconds(7200);
  await othelloClient.patch(path, { scheduled_delivery_timestamp: later });
  [current] = await list(othelloClient);
  assert.equal({ type: current!.type, to: current!.to, topic: current!.topic, at: current!.scheduled_delivery_timestamp }, { type: 'stream', to: strict, topic: 'agenda', at: later });
});

scheduled('deleting cancels; unknown or someone else\'s IDs are refused', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const verona = await channelId(prospero, 'Verona');
  const id = await schedule(prospero, { type: 'stream', to: verona, topic: 't', content: 'bye', scheduled_delivery_timestamp: inSeconds(3600) });
  await expectError(iago.delete(`/scheduled_messages/${id}`), 'BAD_REQUEST', /Scheduled message does not exist/);
  const deleted = await prospero.delete(`/scheduled_messages/${id}`);
  assertMatchesReference('DELETE /scheduled_messages/{scheduled_message_id}', deleted.body);
  assert.equal(await list(prospero), []);
  await expectError(prospero.delete(`/scheduled_messages/${id}`), 'BAD_REQUEST', /Scheduled message does not exist/);
});

scheduled('at its time the message is sent as a normal message and leaves the list; events keep clients in step', async ({ server }) => {
  const desdemona = await server.as('desdemona@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const verona = await channelId(desdemona, 'Verona');
  const mine = await register(desdemona, { fetch_event_types: ['scheduled_messages'], event_types: ['scheduled_messages'] });
  // Hamlet also asks for scheduled_messages events: Desdemona's are not his to see.
  const reader = await register(hamlet, { event_types: ['message', 'scheduled_messages'], apply_markdown: true });
  const cancelled = await schedule(desdemona, { type: 'stream', to: verona, topic: 'never', content: 'never', scheduled_delivery_timestamp: inSeconds(3600) });
  await desdemona.patch(`/scheduled_messages/${cancelled}`, { content: 'never ever' });
  await desdemona.delete(`/scheduled_messages/${cancelled}`);
  const id = await schedule(desdemona, { type: 'stream', to: verona, topic: 'on time', content: 'Right on time, @**King Hamlet**', scheduled_delivery_timestamp: inSeconds(2), read_by_sender: true });
  clock.advance(2000);
  const received = await pollEvents(hamlet, reader.queueId, 1);
  assert.equal(received.map((event) => event.type), ['message']);
  const [delivered] = received;
  const message = delivered!.message as { id: number; subject: string; content: string; sender_email: string };
  assert.equal({ subject: message.subject, sender: message.sender_email }, { subject: 'on time', sender: 'desdemona@zulip.com' });
  assert.match(message.content, /user-mention/);
  assert.equal(delivered!.flags, ['mentioned']);
  const events = await pollEvents(desdemona, mine.queueId, 5);
  assert.equal(events.map((event) => event.op), ['add', 'update', 'remove', 'add', 'remove']);
  assert.is(events[4]!.scheduled_message_id, id);
  for (const event of events) assertEventMatchesReference(event);
  assert.equal(await list(desdemona), []);
  const sent = await desdemona.get(`/messages/${message.id}`);
  assert.ok((sent.body.message as { flags: string[] }).flags.includes('read'), 'read_by_sender');
  await expectError(desdemona.patch(`/scheduled_messages/${id}`, { content: 'too late' }), 'BAD_REQUEST', /Scheduled message does not exist/);
  for (const event of events) applyEvent(mine.state, event);
  assert.equal(comparable(mine.state), comparable((await register(desdemona, { fetch_event_types: ['scheduled_messages'] })).state));
});

scheduled('a message to a channel archived before its time fails, the bot says why, and a new time sends it', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const channel = await createChannel(iago, 'soon archived');
  const state = await register(iago, { fetch_event_types: ['scheduled_messages'], event_types: ['scheduled_messages', 'message'], apply_markdown: true });
  const id = await schedule(iago, { type: 'channel', to: channel, topic: 'plans', content: 'see you', scheduled_delivery_timestamp: inSeconds(2) });
  await iago.delete(`/streams/${channel}`);
  clock.advance(2000);
  const events = await pollEvents(iago, state.queueId, 3);
  const failure = events.find((event) => event.type === 'scheduled_messages' && event.op === 'update')!;
  assert.equal((failure.scheduled_message as Scheduled).failed, true);
  const notice = events.find((event) => event.type === 'message')!.message as { sender_full_name: string; content: string; type: string };
  assert.equal({ sender: notice.sender_full_name, type: notice.type }, { sender: 'Notification Bot', type: 'private' });
  assert.match(notice.content, /was not sent because of the following error/);
  assert.match(notice.content, /Not authorized to send to channel/);
  assert.match(notice.content, /<time datetime="/);
  assert.equal((await list(iago)).map((message) => [message.scheduled_message_id, message.failed]), [[id, true]]);
  for (const event of events) if (event.type === 'scheduled_messages') applyEvent(state.state, event);
  assert.equal(state.state.scheduled_messages, (await register(iago, { fetch_event_types: ['scheduled_messages'] })).state.scheduled_messages);

  await expectError(iago.patch(`/scheduled_messages/${id}`, { content: 'no new time' }), 'BAD_REQUEST', /must be in the future/);
  assert.equal((await list(iago))[0]!.failed, true, 'an edit without a new time leaves it failed');
  await iago.patch(`/streams/${channel}`, { is_archived: false });
  await iago.patch(`/scheduled_messages/${id}`, { scheduled_delivery_timestamp: inSeconds(2) });
  assert.equal((await list(iago))[0]!.failed, false, 'rescheduled');
  const reader = await register(iago, { event_types: ['message'], apply_markdown: true });
  clock.advance(2000);
  const [sent] = await pollEvents(iago, reader.queueId, 1);
  assert.is((sent!.message as { content: string }).content, '<p>see you</p>');
  assert.equal(await list(iago), []);
});

scheduled('a deactivated sender\'s message fails without a notice', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const poloniusId = await idOf(polonius);
  const watcher = await register(iago, { event_types: ['message'] });
  const verona = await channelId(iago, 'Verona');
  await schedule(polonius, { type: 'stream', to: verona, topic: 'ghost', content: 'boo', scheduled_delivery_timestamp: inSeconds(2) });
  await iago.delete(`/users/${poloniusId}`);
  clock.advance(2000);
  await server.parley.realms.idle();
  const events = (await iago.get('/events', { queue_id: watcher.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.filter((event) => event.type === 'message'), [], 'nothing was sent');
  await iago.post(`/users/${poloniusId}/reactivate`);
  assert.equal((await list(polonius)).map((message) => message.failed), [true]);
});

scheduled('delivery survives a restart: on time sends, more than 10 minutes late fails', async () => {
  const restartClock = new TestClock();
  const config = testConfig({ clock: restartClock });
  const first = await startTestServer(config);
  const hamlet = await first.as('hamlet@zulip.com');
  const verona = await channelId(hamlet, 'Verona');
  const late = await schedule(hamlet, { type: 'stream', to: verona, topic: 'restart', content: 'too late', scheduled_delivery_timestamp: inSeconds(60) });
  const onTime = await schedule(hamlet, { type: 'stream', to: verona, topic: 'restart', content: 'still fine', scheduled_delivery_timestamp: inSeconds(9 * 60) });
  await first.parley.close();

  restartClock.advance(12 * 60 * 1000);
  const second = await startTestServer(config);
  try {
    const again = await second.as('hamlet@zulip.com');
    let remaining: Scheduled[] = [];
    for (let tries = 0; tries < 100; tries++) {
      remaining = await list(again);
      if (remaining.length === 1 && remaining[0]!.failed) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(remaining.map((message) => [message.scheduled_message_id, message.failed]), [[late, true]]);
    const topic = await again.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: verona }, { operator: 'topic', operand: 'restart' }] });
    assert.equal((topic.body.messages as { content: string }[]).map((message) => message.content), ['<p>still fine</p>']);
    const notices = await again.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
    assert.match((notices.body.messages as { content: string }[])[0]!.content, /Message could not be sent at the scheduled time/);
    assert.ok(onTime > late);
  } finally {
    await second.stop();
  }
});

scheduled('a message refused for now at its time (the disk) stays scheduled and goes once its retry comes; one a bug refuses is marked failed', async () => {
  const saveMessage = Store.prototype.saveMessage;
  let refusals = 0;
  // The disk refuses the first try of one message; the other meets a bug every time.
  Store.prototype.saveMessage = function (this: Store, message: MessageRecord, before?: MessageRecord) {
    if (message.content === 'disk full at first' && refusals++ === 0) throw new StorageError(new Error('ENOSPC: no space left on device'));
    if (message.content === 'meets a bug') throw new Error('a bug');
    saveMessage.call(this, message, before);
  };
  try {
    const server = await startTestServer({ clock });
    try {
      const desdemona = await server.as('desdemona@zulip.com');
      const verona = await channelId(desdemona, 'Verona');
      const retried = await schedule(desdemona, { type: 'channel', to: verona, topic: 'retry', content: 'disk full at first', scheduled_delivery_timestamp: inSeconds(2) });
      const broken = await schedule(desdemona, { type: 'channel', to: verona, topic: 'retry', content: 'meets a bug', scheduled_delivery_timestamp: inSeconds(2) });
      clock.advance(2000);
      await until(async () => (await list(desdemona)).some((message) => message.failed));
      assert.equal((await list(desdemona)).map((message) => [message.scheduled_message_id, message.failed]), [[retried, false], [broken, true]]);
      assert.is(refusals, 1, 'tried once so far');
      // The disk's answer says to try again in 30 seconds.
      clock.advance(30_000);
      await until(async () => (await list(desdemona)).length === 1);
      assert.equal((await list(desdemona)).map((message) => message.scheduled_message_id), [broken]);
      const found = await desdemona.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false, narrow: [['channel', verona], ['topic', 'retry']] });
      assert.equal((found.body.messages as { content: string }[]).map((message) => message.content), ['disk full at first']);
    } finally {
      await server.stop();
    }
  } finally {
    Store.prototype.saveMessage = saveMessage;
  }
});

scheduled('the scheduled-message endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/scheduled_messages'],
    ['POST', '/scheduled_messages'],
    ['PATCH', '/scheduled_messages/1'],
    ['DELETE', '/scheduled_messages/1'],
  ]);
});

scheduled.run();
