// Mobile push of messages (issue #20): who is notified (direct messages, mentions, wildcard
// mentions per the settings, alert words, followed topics; not the connected, the muted, or those
// who cannot read the message), the payload sealed to each E2EE device, the removal once read, and
// the outbox: sending never waits for the relay, an outage or a restart loses nothing, and what the
// relay took is not sent again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withUnseenWriter } from './helpers/restrictedGuests.js';
import { BotService } from './helpers/botService.js';
import type { ApiClient } from './helpers/client.js';
import { TestClock } from './helpers/clock.js';
import { register } from './helpers/events.js';
import { open, registerDevice, type Device } from './helpers/pushDevices.js';
import { assertMatchesReference } from './helpers/reference.js';
import { settlements, until } from './helpers/notifier.js';
import { FakeRelay } from './helpers/relay.js';
import { startTestServer, testConfig, waitFor, type TestServer } from './helpers/server.js';

const E2EE_PATH = '/api/v1/remotes/push/e2ee/notify';
const CREDENTIALS = 'server-uuid:server-api-key';

interface Context {
  server: TestServer;
  relay: FakeRelay;
  /** An outgoing-webhook bot's service. */
  service: BotService;
  clock: TestClock;
  /** Othello's phone: the user most tests notify. */
  phone: Device;
  othelloId: number;
  hamletId: number;
}

const notifications = suite<Context>('message notifications');

notifications.before(async (context) => {
  context.relay = await FakeRelay.start();
  context.clock = new TestClock();
  context.service = await BotService.start();
  // Bots' services on loopback, waited for long enough that a held request outlasts the test.
  context.server = await startTestServer({ clock: context.clock, pushRelay: { url: context.relay.url, credentials: CREDENTIALS, timeoutMs: 300 }, outgoingWebhooks: { allow: ['127.0.0.1'], timeoutMs: 20_000 } });
  const othello = await context.server.as('othello@zulip.com');
  context.phone = await registerDevice(othello, 501);
  context.othelloId = await idOf(othello);
  context.hamletId = await idOf(await context.server.as('hamlet@zulip.com'));
});
notifications.after(async ({ server, relay, service }) => {
  await service.stop();
  await server.stop();
  await relay.close();
});
notifications.before.each(({ relay }) => {
  relay.behaviour = 'ok';
  relay.requests.length = 0;
});

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** What the device was sent, in order, opened with its key. */
function received(relay: FakeRelay, device: Device): Record<string, unknown>[] {
  return relay.requests
    .filter((request) => request.path === E2EE_PATH)
    .flatMap((request) => (request.body.devices as { push_account_id: number; encrypted_data: string }[]).filter((entry) => entry.push_account_id === device.pushAccountId))
    .map((entry) => open(device, entry.encrypted_data));
}

/** The message IDs the device was notified of, once the notification of `last` arrived: every
 * notification queued before it has been sent by then (the outbox goes out in order). */
async function notifiedUpTo(relay: FakeRelay, device: Device, last: number): Promise<number[]> {
  await waitFor(() => received(relay, device).some((payload) => payload.message_id === last));
  return received(relay, device).filter((payload) => payload.type === 'message').map((payload) => payload.message_id as number);
}

/** A direct message from Hamlet to Othello: notified whenever Othello is, so it marks the end of
 * what the tests before it caused. */
const sentinel = async (server: TestServer, othelloId: number): Promise<number> =>
  send(await server.as('hamlet@zulip.com'), { type: 'direct', to: JSON.stringify([othelloId]), content: 'sentinel' });

notifications('a direct message to a user with no client connected: the payload sealed to their device, in Zulip\'s shape', async ({ server, relay, phone, othelloId, hamletId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'Meet me at **noon**' });
  await waitFor(() => received(relay, phone).length > 0);
  const [request] = relay.requests;
  assert.is(request!.path, E2EE_PATH);
  assert.is(request!.authorization, `Basic ${Buffer.from(CREDENTIALS).toString('base64')}`);
  assert.is(request!.body.user_id, othelloId);
  const [payload] = received(relay, phone);
  assert.equal(
    { ...payload, time: undefined, sender_avatar_url: undefined },
    {
      type: 'message',
      message_id: id,
      sender_id: hamletId,
      sender_full_name: 'King Hamlet',
      sender_avatar_url: undefined,
      recipient_type: 'direct',
      content: 'Meet me at noon',
      time: undefined,
      realm_url: `http://${server.config.externalHost}`,
      realm_name: 'Zulip Dev',
      user_id: othelloId,
    },
  );
  assert.type(payload!.time, 'number');
  assert.match(String(payload!.sender_avatar_url), /^https?:\/\//);
});

notifications("a bot's service that does not answer holds up no push notification", async ({ server, relay, service, phone, othelloId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const created = await hamlet.post('/bots', { full_name: 'Slow Service', short_name: 'slowservice', bot_type: 3, payload_url: JSON.stringify(service.url), interface_type: 1 });
  assert.is(created.status, 200, JSON.stringify(created.body));
  service.answers = ['hang'];
  await send(hamlet, { type: 'direct', to: JSON.stringify([Number(created.body.user_id)]), content: 'are you there?' });
  await service.waitFor(1);
  // The service holds its request; Othello's notification goes out meanwhile.
  const dm = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'while the bot thinks' });
  assert.ok((await notifiedUpTo(relay, phone, dm)).includes(dm));
  assert.is(service.received.length, 1, 'the request is still held');
  service.release({ content: 'here' });
});

notifications('channel messages notify on mentions, wildcard mentions as the settings say, alert words and followed topics', async ({ server, relay, phone, othelloId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const plain = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'rules', content: 'nothing for anyone' });
  const mention = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'rules', content: '@**Othello, the Moor of Venice** look' });
  const wildcard = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'rules', content: '@**all** hello' });
  assert.is((await othello.patch('/settings', { wildcard_mentions_notify: false })).status, 200);
  const quietWildcard = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'rules', content: '@**all** again' });
  assert.is((await othello.post('/users/me/alert_words', { alert_words: JSON.stringify(['pineapple']) })).status, 200);
  const alert = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'rules', content: 'who wants pineapple?' });
  const verona = Number((await othello.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.is((await othello.post('/user_topics', { stream_id: verona, topic: 'followed', visibility_policy: 3 })).status, 200);
  const followed = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'followed', content: 'anything at all' });
  const end = await sentinel(server, othelloId);
  const ids = await notifiedUpTo(relay, phone, end);
  assert.equal(ids, [mention, wildcard, alert, followed, end]);
  assert.not.ok(ids.includes(plain) || ids.includes(quietWildcard));
  const channelPayload = received(relay, phone).find((payload) => payload.message_id === mention)!;
  assert.equal([channelPayload.recipient_type, channelPayload.channel_id, channelPayload.channel_name, channelPayload.topic], ['channel', verona, 'Verona', 'rules']);
  await othello.patch('/settings', { wildcard_mentions_notify: true });
  await othello.delete('/users/me/alert_words', { alert_words: JSON.stringify(['pineapple']) });
});

notifications('no notification for muted topics (but for personal mentions), muted senders, offline push turned off, or a connected client without online push', async ({ server, relay, phone, othelloId, hamletId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const verona = Number((await othello.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  await othello.post('/user_topics', { stream_id: verona, topic: 'muted', visibility_policy: 1 });
  const mutedWildcard = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'muted', content: '@**all** in a muted topic' });
  const mutedMention = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'muted', content: '@**Othello, the Moor of Venice** in a muted topic' });

  const iago = await server.as('iago@zulip.com');
  assert.is((await othello.post(`/users/me/muted_users/${await idOf(iago)}`)).status, 200);
  const fromMuted = await send(iago, { type: 'direct', to: JSON.stringify([othelloId]), content: 'you muted me' });
  await othello.delete(`/users/me/muted_users/${await idOf(iago)}`);

  assert.is((await othello.patch('/settings', { enable_offline_push_notifications: false })).status, 200);
  const offlineOff = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'offline push off' });
  await othello.patch('/settings', { enable_offline_push_notifications: true });

  const queue = await register(othello, { event_types: ['message'] });
  const onlineOn = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'connected, online push on' });
  await othello.patch('/settings', { enable_online_push_notifications: false });
  const onlineOff = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'connected, online push off' });
  await othello.delete('/events', { queue_id: queue.queueId });
  await othello.patch('/settings', { enable_online_push_notifications: true });

  const ownMessage = await send(othello, { type: 'direct', to: JSON.stringify([hamletId]), content: 'my own message' });
  const end = await sentinel(server, othelloId);
  const ids = await notifiedUpTo(relay, phone, end);
  assert.equal(ids, [mutedMention, onlineOn, end]);
  for (const id of [mutedWildcard, fromMuted, offlineOff, onlineOff, ownMessage]) assert.not.ok(ids.includes(id));
});

notifications('notifications never reach someone who cannot read the message', async ({ server, relay }) => {
  const iago = await server.as('iago@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const guestPhone = await registerDevice(polonius, 777);
  const poloniusId = await idOf(polonius);
  // Polonius is not subscribed to the private channel: a mention there does not reach him.
  const hidden = await send(iago, { type: 'stream', to: 'core team', topic: 'secret', content: '@**Polonius** do not tell' });
  const visible = await send(iago, { type: 'direct', to: JSON.stringify([poloniusId]), content: 'this one you may read' });
  const ids = await notifiedUpTo(relay, guestPhone, visible);
  assert.equal(ids, [visible]);
  assert.not.ok(ids.includes(hidden));
});

notifications('a restricted guest is notified of a message from someone they may not see as from an "Unknown user"', async ({ server, relay, phone }) => {
  const polonius = await server.as('polonius@zulip.com');
  const guestPhone = await registerDevice(polonius, 778);
  await withUnseenWriter(server, { email: 'outsider@zulip.com', fullName: 'Outside Writer' }, async (outsider, outsiderId) => {
    const id = await send(outsider, { type: 'stream', to: 'Verona', topic: 'visitors', content: '@**Polonius** hello from outside' });
    await waitFor(() => received(relay, guestPhone).some((payload) => payload.message_id === id));
    const payload = received(relay, guestPhone).find((candidate) => candidate.message_id === id)!;
    assert.equal([payload.sender_id, payload.sender_full_name], [outsiderId, 'Unknown user']);
    assert.not.match(JSON.stringify(payload), /outside writer|outsider@/i);
    // A member is told who wrote.
    const toMember = await send(outsider, { type: 'stream', to: 'Verona', topic: 'visitors', content: '@**Othello, the Moor of Venice** and you' });
    await waitFor(() => received(relay, phone).some((candidate) => candidate.message_id === toMember));
    assert.is(received(relay, phone).find((candidate) => candidate.message_id === toMember)!.sender_full_name, 'Outside Writer');
  });
});

notifications('reading notified messages sends a removal with their IDs; unread ones stay', async ({ server, relay, phone, othelloId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const first = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'one' });
  const second = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'two' });
  const third = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'three' });
  await notifiedUpTo(relay, phone, third);
  // The relay's acknowledgement is recorded in a write after the request: wait for it.
  await server.parley.realms.idle();
  assert.is((await othello.post('/messages/flags', { messages: JSON.stringify([first, second]), op: 'add', flag: 'read' })).status, 200);
  await waitFor(() => received(relay, phone).some((payload) => payload.type === 'remove'));
  const removal = received(relay, phone).find((payload) => payload.type === 'remove')!;
  assert.equal({ type: removal.type, message_ids: removal.message_ids, user_id: removal.user_id }, { type: 'remove', message_ids: [first, second], user_id: othelloId });
  // Reading again (already read) sends nothing more; the third is removed when it is read.
  await othello.post('/messages/flags', { messages: JSON.stringify([first, second, third]), op: 'add', flag: 'read' });
  await waitFor(() => received(relay, phone).filter((payload) => payload.type === 'remove').length === 2);
  assert.equal(received(relay, phone).filter((payload) => payload.type === 'remove').map((payload) => payload.message_ids), [[first, second], [third]]);
});

notifications('a message read before its notification went out is not notified', async ({ server, relay, phone, clock, othelloId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  relay.behaviour = 'fail';
  const before = await settlements(server);
  const early = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'read it before the relay is back' });
  await until(async () => (await settlements(server)) > before);
  await othello.post('/messages/flags', { messages: JSON.stringify([early]), op: 'add', flag: 'read' });
  relay.behaviour = 'ok';
  relay.requests.length = 0;
  // Its retry falls due, finds it read, and drops it.
  clock.advance(10_000);
  await server.parley.realms.idle();
  const end = await sentinel(server, othelloId);
  assert.equal(await notifiedUpTo(relay, phone, end), [end]);
});

notifications('sending never waits for the relay: a relay that never answers holds back no message', async () => {
  const silent = await FakeRelay.start();
  silent.behaviour = 'hang';
  const server = await startTestServer({ pushRelay: { url: silent.url, credentials: CREDENTIALS, timeoutMs: 60_000 } });
  try {
    const othello = await server.as('othello@zulip.com');
    const phone = await registerDevice(othello, 3);
    const hamlet = await server.as('hamlet@zulip.com');
    for (const content of ['one', 'two']) await send(hamlet, { type: 'direct', to: JSON.stringify([await idOf(othello)]), content });
    await waitFor(() => received(silent, phone).length > 0);
    assert.is((await hamlet.get('/users/me')).status, 200, 'the realm answers while the relay holds its request');
  } finally {
    // Dropping the relay's connections ends the request in flight, so the server stops at once.
    await silent.close();
    await server.stop();
  }
});

notifications('a relay outage is retried with backoff (10 s, then 20 s), and the notification is delivered once', async ({ server, relay, phone, clock, othelloId }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const attemptsOf = (id: number) => received(relay, phone).filter((payload) => payload.message_id === id).length;
  relay.behaviour = 'fail';
  const before = await settlements(server);
  const id = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'during an outage' });
  await until(async () => (await settlements(server)) > before);
  assert.is(attemptsOf(id), 1);
  clock.advance(10_000);
  await until(async () => (await settlements(server)) > before + 1);
  assert.is(attemptsOf(id), 2, 'retried after 10 s');
  relay.behaviour = 'ok';
  clock.advance(10_000);
  const early = await sentinel(server, othelloId);
  await notifiedUpTo(relay, phone, early);
  assert.is(attemptsOf(id), 2, 'the second wait is 20 s: not yet');
  clock.advance(10_000);
  await waitFor(() => attemptsOf(id) === 3);
  clock.advance(24 * 3600 * 1000);
  const end = await sentinel(server, othelloId);
  await notifiedUpTo(relay, phone, end);
  assert.is(attemptsOf(id), 3, 'delivered once, never again');
});

notifications('a restart loses no notification, and one the relay took is not sent again', async ({ relay }) => {
  const clock = new TestClock();
  const config = testConfig({ clock, pushRelay: { url: relay.url, credentials: CREDENTIALS, timeoutMs: 300 } });
  const first = await startTestServer(config);
  const othello = await first.as('othello@zulip.com');
  const device = await registerDevice(othello, 9001);
  const othelloId = await idOf(othello);
  const hamlet = await first.as('hamlet@zulip.com');
  const delivered = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'before the outage' });
  await notifiedUpTo(relay, device, delivered);
  await first.parley.realms.idle();
  relay.behaviour = 'fail';
  const pending = await send(hamlet, { type: 'direct', to: JSON.stringify([othelloId]), content: 'during the outage' });
  await waitFor(() => relay.requests.length >= 2);
  await first.parley.realms.idle();
  await first.parley.close();

  relay.behaviour = 'ok';
  relay.requests.length = 0;
  const second = await startTestServer(config);
  try {
    clock.advance(60_000);
    await waitFor(() => received(relay, device).length > 0);
    await second.parley.realms.idle();
    assert.equal(received(relay, device).map((payload) => payload.message_id), [pending]);
  } finally {
    await second.stop();
  }
});

const TOKEN_PATH = '/api/v1/remotes/push/notify';

type TokenBody = { user_id: number; android_devices: string[]; apple_devices: string[]; gcm_payload: Record<string, unknown>; apns_payload: { custom: { zulip: Record<string, unknown> } } };
const tokenRequests = (relay: FakeRelay, userId: number): TokenBody[] =>
  relay.requests.filter((request) => request.path === TOKEN_PATH && request.body.user_id === userId).map((request) => request.body as unknown as TokenBody);

notifications('the older token endpoints: checked, registered with the relay, and notified through its token API', async ({ server, relay }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const cordeliaId = await idOf(cordelia);
  const hamlet = await server.as('hamlet@zulip.com');
  const empty = await cordelia.post('/users/me/android_gcm_reg_id', { token: '' });
  assert.equal([empty.status, empty.body.msg], [400, 'Empty or invalid length token']);
  assertMatchesReference('POST /users/me/android_gcm_reg_id', empty.body, {}, 400);
  const notHex = await cordelia.post('/users/me/apns_device_token', { token: 'not hex!', appid: 'org.zulip.Zulip' });
  assert.equal([notHex.status, notHex.body.msg], [400, 'Invalid APNS token']);
  assert.is((await cordelia.post('/users/me/apns_device_token', { token: 'abcdef' })).status, 400, 'appid is required');
  for (const call of [cordelia.post, cordelia.delete]) assert.equal((await call('/users/me/android_gcm_reg_id', { token: 'x'.repeat(4097) })).body.msg, 'Empty or invalid length token');
  assert.is(relay.requests.length, 0, 'nothing refused reaches the relay');

  const android = await cordelia.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-cordelia' });
  assert.is(android.status, 200, JSON.stringify(android.body));
  assertMatchesReference('POST /users/me/android_gcm_reg_id', android.body);
  const apple = await cordelia.post('/users/me/apns_device_token', { token: 'c0ffee', appid: 'org.zulip.Zulip' });
  assert.is(apple.status, 200);
  assertMatchesReference('POST /users/me/apns_device_token', apple.body);
  assert.equal(
    relay.requests.map((request) => [request.path, request.body]),
    [
      ['/api/v1/remotes/push/register', { user_id: cordeliaId, token: 'fcm-token-cordelia', token_kind: 2 }],
      ['/api/v1/remotes/push/register', { user_id: cordeliaId, token: 'c0ffee', token_kind: 1, ios_app_id: 'org.zulip.Zulip' }],
    ],
  );

  const id = await send(hamlet, { type: 'direct', to: JSON.stringify([cordeliaId]), content: 'to your phone' });
  await waitFor(() => tokenRequests(relay, cordeliaId).length === 1);
  const [notice] = tokenRequests(relay, cordeliaId);
  assert.equal([notice!.android_devices, notice!.apple_devices], [['fcm-token-cordelia'], ['c0ffee']]);
  assert.equal(
    [notice!.gcm_payload.event, notice!.gcm_payload.zulip_message_id, notice!.gcm_payload.content, notice!.gcm_payload.sender_full_name, notice!.gcm_payload.recipient_type, notice!.gcm_payload.user_id],
    ['message', id, 'to your phone', 'King Hamlet', 'private', cordeliaId],
  );
  assert.equal(notice!.apns_payload.custom.zulip.message_ids, [id]);
  await server.parley.realms.idle();
  await cordelia.post('/messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' });
  await waitFor(() => tokenRequests(relay, cordeliaId).length === 2);
  const removal = tokenRequests(relay, cordeliaId)[1]!;
  assert.equal([removal.gcm_payload.event, removal.gcm_payload.zulip_message_ids, removal.apns_payload.custom.zulip.event], ['remove', String(id), 'remove']);

  const unknown = await cordelia.delete('/users/me/android_gcm_reg_id', { token: 'never-registered' });
  assert.equal([unknown.status, unknown.body.msg], [400, 'Token does not exist']);
  // (The reference's 400 here is a oneOf of two schemas of one shape, which no body can match.)
  assert.equal((await cordelia.delete('/users/me/apns_device_token', { token: 'deadbeef' })).body, { result: 'error', msg: 'Token does not exist', code: 'BAD_REQUEST' });
  const removed = await cordelia.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-cordelia' });
  assert.is(removed.status, 200);
  assertMatchesReference('DELETE /users/me/android_gcm_reg_id', removed.body);
  assert.is((await cordelia.delete('/users/me/apns_device_token', { token: 'c0ffee' })).status, 200);
  assert.equal(relay.requests.filter((request) => request.path === '/api/v1/remotes/push/unregister').map((request) => request.body.token), ['fcm-token-cordelia', 'c0ffee']);
  const after = await send(hamlet, { type: 'direct', to: JSON.stringify([cordeliaId]), content: 'no phone any more' });
  const phone = await registerDevice(cordelia, 4242);
  const end = await send(hamlet, { type: 'direct', to: JSON.stringify([cordeliaId]), content: 'to the new phone' });
  assert.equal(await notifiedUpTo(relay, phone, end), [end]);
  assert.is(tokenRequests(relay, cordeliaId).length, 2, `no token notification of ${after}`);
});

notifications('a token that changes hands leaves its former user; a relay refusal registers nothing; no relay, no tokens', async ({ server, relay }) => {
  const prospero = await server.as('prospero@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const [prosperoId, iagoId] = [await idOf(prospero), await idOf(iago)];
  assert.is((await prospero.post('/users/me/android_gcm_reg_id', { token: 'shared-phone' })).status, 200);
  assert.is((await iago.post('/users/me/android_gcm_reg_id', { token: 'shared-phone' })).status, 200);
  const hamlet = await server.as('hamlet@zulip.com');
  await send(hamlet, { type: 'direct', to: JSON.stringify([prosperoId]), content: 'not to the phone Iago now holds' });
  const toIago = await send(hamlet, { type: 'direct', to: JSON.stringify([iagoId]), content: 'to Iago' });
  await waitFor(() => tokenRequests(relay, iagoId).length === 1);
  await server.parley.realms.idle();
  assert.is(tokenRequests(relay, prosperoId).length, 0);
  assert.is(tokenRequests(relay, iagoId)[0]!.gcm_payload.zulip_message_id, toIago);

  relay.behaviour = 'reject';
  const refused = await prospero.post('/users/me/android_gcm_reg_id', { token: 'refused-token' });
  assert.equal([refused.status, refused.body.code], [403, 'ADMIN_ACTION_REQUIRED']);
  const gone = await prospero.delete('/users/me/android_gcm_reg_id', { token: 'refused-token' });
  assert.equal([gone.status, gone.body.msg], [400, 'Token does not exist']);

  const bare = await startTestServer();
  try {
    const hamletThere = await bare.as('hamlet@zulip.com');
    const response = await hamletThere.post('/users/me/android_gcm_reg_id', { token: 'abc' });
    assert.equal([response.status, response.body.code], [400, 'PUSH_SERVICE_NOT_CONFIGURED']);
  } finally {
    await bare.stop();
  }
});

notifications.run();
