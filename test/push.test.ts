// Mobile push (spec endpoint 21): devices registered with their NaCl key, the E2EE test
// notification sealed to each device's key and posted to the push relay, and each of the four
// push errors produced by the relay behaviour (or server state) that causes it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { base64, open, registerDevice } from './helpers/pushDevices.js';
import { FakeRelay, refusingUrl } from './helpers/relay.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const push = suite<{ server: TestServer; relay: FakeRelay }>('mobile push');

const CREDENTIALS = 'server-uuid:server-api-key';

push.before(async (context) => {
  context.relay = await FakeRelay.start();
  context.server = await startTestServer({ pushRelay: { url: context.relay.url, credentials: CREDENTIALS, timeoutMs: 300 } });
});
push.after(async ({ server, relay }) => {
  await server.stop();
  await relay.close();
});

push('registering a device: checked, announced to the user\'s clients, in register\'s push_devices', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const state = await register(hamlet, { fetch_event_types: ['push_device'], event_types: ['push_device'] });
  assert.equal(state.state.push_devices, {});
  const bad = await hamlet.post('/mobile_push/register', { token_kind: 'fcm', push_account_id: 1, push_public_key: base64(new Uint8Array(7)), bouncer_public_key: 'k', encrypted_push_registration: 'AAAA' });
  assert.equal([bad.status, bad.body.code, bad.body.msg], [400, 'BAD_REQUEST', 'Invalid push_public_key']);
  const notBase64 = await hamlet.post('/mobile_push/register', { token_kind: 'fcm', push_account_id: 1, push_public_key: base64(new Uint8Array(32)), bouncer_public_key: 'k', encrypted_push_registration: '%%%' });
  assert.equal([notBase64.status, notBase64.body.msg], [400, 'Invalid encrypted_push_registration']);
  assert.is((await hamlet.post('/mobile_push/register', { token_kind: 'gcm', push_account_id: 1, push_public_key: 'x', bouncer_public_key: 'k', encrypted_push_registration: 'x' })).status, 400);
  await registerDevice(hamlet, 111);
  const events = (await hamlet.get('/events', { queue_id: state.queueId, last_event_id: -1, dont_block: true })).body.events as { type: string }[];
  assert.equal(events.map((event) => event.type), ['push_device']);
  for (const event of events) assertEventMatchesReference(event as { type: string; id: number });
  for (const event of events) applyEvent(state.state, event);
  const fresh = await register(hamlet, { fetch_event_types: ['push_device'] });
  assertMatchesReference('POST /register', fresh.state);
  assert.equal(comparable(state.state), comparable(fresh.state));
  assert.equal(fresh.state.push_devices, { '111': { status: 'active', error_code: null } });
});

push('without a relay configured, registration answers PUSH_SERVICE_NOT_CONFIGURED', async () => {
  const bare = await startTestServer();
  try {
    const hamlet = await bare.as('hamlet@zulip.com');
    const response = await hamlet.post('/mobile_push/register', { token_kind: 'apns', push_account_id: 5, push_public_key: base64(new Uint8Array(32)), bouncer_public_key: 'k', encrypted_push_registration: 'AAAA' });
    assert.equal([response.status, response.body.code], [400, 'PUSH_SERVICE_NOT_CONFIGURED']);
    assertMatchesReference('POST /mobile_push/register', response.body, {}, 400);
  } finally {
    await bare.stop();
  }
});

push('the test notification is sealed to each device\'s key and sent to the relay; device_id picks one', async ({ server, relay }) => {
  const othello = await server.as('othello@zulip.com');
  const othelloId = Number((await othello.get('/users/me')).body.user_id);
  const none = await othello.post('/mobile_push/e2ee/test_notification');
  assert.equal([none.status, none.body.code], [400, 'NO_ACTIVE_PUSH_DEVICE']);
  assertMatchesReference('POST /mobile_push/e2ee/test_notification', none.body, {}, 400);
  const phone = await registerDevice(othello, 2408);
  const tablet = await registerDevice(othello, 2409);
  relay.behaviour = 'ok';
  relay.requests.length = 0;
  const all = await othello.post('/mobile_push/e2ee/test_notification');
  assert.is(all.status, 200, JSON.stringify(all.body));
  assertMatchesReference('POST /mobile_push/e2ee/test_notification', all.body);
  const [request] = relay.requests;
  assert.is(request!.path, '/api/v1/remotes/push/e2ee/notify');
  assert.is(request!.authorization, `Basic ${Buffer.from(CREDENTIALS).toString('base64')}`);
  const devices = request!.body.devices as { push_account_id: number; encrypted_data: string; bouncer_public_key: string }[];
  assert.equal(devices.map((device) => device.push_account_id).sort(), [2408, 2409]);
  for (const [device, keys] of [[devices.find((d) => d.push_account_id === 2408)!, phone], [devices.find((d) => d.push_account_id === 2409)!, tablet]] as const) {
    const payload = open(keys, device.encrypted_data);
    assert.equal({ type: payload.type, user_id: payload.user_id }, { type: 'test', user_id: othelloId });
    assert.is(device.bouncer_public_key, 'bouncer-key-1');
  }
  assert.throws(() => open(tablet, devices.find((d) => d.push_account_id === 2408)!.encrypted_data), undefined, 'only the device\'s own key opens its payload');

  relay.requests.length = 0;
  assert.is((await othello.post('/mobile_push/e2ee/test_notification', { device_id: 2409 })).status, 200);
  assert.equal((relay.requests[0]!.body.devices as { push_account_id: number }[]).map((device) => device.push_account_id), [2409]);
  assert.is((await othello.post('/mobile_push/e2ee/test_notification', { push_account_id: 2408 })).status, 200, 'Zulip\'s name for the same parameter');
  const unknown = await othello.post('/mobile_push/e2ee/test_notification', { device_id: 1 });
  assert.equal([unknown.status, unknown.body.code], [400, 'NO_ACTIVE_PUSH_DEVICE']);
});

push('relay failures: 4xx → ADMIN_ACTION_REQUIRED, 5xx → INTERNAL_SERVER_ERROR_ON_BOUNCER, hang or reset → FAILED_TO_CONNECT_BOUNCER', async ({ server, relay }) => {
  const iago = await server.as('iago@zulip.com');
  await registerDevice(iago, 77);
  const cases = [
    ['reject', 403, 'ADMIN_ACTION_REQUIRED', 'PushNotificationAdminActionRequiredError'],
    ['fail', 502, 'INTERNAL_SERVER_ERROR_ON_BOUNCER', 'InternalBouncerServerError'],
    ['hang', 502, 'FAILED_TO_CONNECT_BOUNCER', 'FailedToConnectBouncerError'],
    ['reset', 502, 'FAILED_TO_CONNECT_BOUNCER', 'FailedToConnectBouncerError'],
  ] as const;
  for (const [behaviour, status, code, component] of cases) {
    relay.behaviour = behaviour;
    const response = await iago.post('/mobile_push/e2ee/test_notification');
    assert.equal([response.status, response.body.code], [status, code], behaviour);
    // The reference's 502 is a oneOf of two schemas of one shape, so each is checked by name.
    assertMatchesComponent(component, response.body);
  }
  relay.behaviour = 'ok';
});

push('a relay that refuses connections → FAILED_TO_CONNECT_BOUNCER', async ({ relay }) => {
  const refused = await startTestServer({ pushRelay: { url: await refusingUrl(), credentials: CREDENTIALS, timeoutMs: 1000 } });
  try {
    const hamlet = await refused.as('hamlet@zulip.com');
    await registerDevice(hamlet, 9);
    const response = await hamlet.post('/mobile_push/e2ee/test_notification');
    assert.equal([response.status, response.body.code], [502, 'FAILED_TO_CONNECT_BOUNCER']);
    assert.is(relay.requests.filter((request) => (request.body.devices as { push_account_id: number }[]).some((device) => device.push_account_id === 9)).length, 0);
  } finally {
    await refused.stop();
  }
});

push('the push endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['POST', '/mobile_push/register'],
    ['POST', '/mobile_push/e2ee/test_notification'],
  ]);
});

push('the older test notification goes through the relay\'s token API to the user\'s tokens, or the one named', async ({ server, relay }) => {
  const cordelia = await server.as('cordelia@zulip.com');
  const cordeliaId = Number((await cordelia.get('/users/me')).body.user_id);
  relay.behaviour = 'ok';
  const none = await cordelia.post('/mobile_push/test_notification');
  assert.equal([none.status, none.body.code], [400, 'NO_ACTIVE_PUSH_DEVICE']);
  assert.is((await cordelia.post('/users/me/android_gcm_reg_id', { token: 'android-token' })).status, 200);
  assert.is((await cordelia.post('/users/me/apns_device_token', { token: 'abc123', appid: 'org.zulip.Zulip' })).status, 200);
  relay.requests.length = 0;
  const all = await cordelia.post('/mobile_push/test_notification');
  assert.is(all.status, 200, JSON.stringify(all.body));
  assertMatchesReference('POST /mobile_push/test_notification', all.body);
  const [request] = relay.requests;
  assert.is(request!.path, '/api/v1/remotes/push/notify');
  assert.is(request!.authorization, `Basic ${Buffer.from(CREDENTIALS).toString('base64')}`);
  const body = request!.body as { user_id: number; android_devices: string[]; apple_devices: string[]; gcm_payload: Record<string, unknown>; apns_payload: { alert: { title: string; body: string }; custom: { zulip: Record<string, unknown> } } };
  assert.equal({ user: body.user_id, android: body.android_devices, apple: body.apple_devices }, { user: cordeliaId, android: ['android-token'], apple: ['abc123'] });
  assert.equal({ event: body.gcm_payload.event, user: body.gcm_payload.user_id }, { event: 'test', user: cordeliaId });
  assert.is(typeof body.gcm_payload.time, 'number');
  assert.is(body.apns_payload.alert.title, 'Test notification');
  assert.match(body.apns_payload.alert.body, /^This is a test notification from .+ \(http.+\)\.$/);
  assert.is(body.apns_payload.custom.zulip.event, 'test');

  relay.requests.length = 0;
  assert.is((await cordelia.post('/mobile_push/test_notification', { token: 'abc123' })).status, 200);
  const named = relay.requests[0]!.body as { android_devices: string[]; apple_devices: string[] };
  assert.equal([named.android_devices, named.apple_devices], [[], ['abc123']]);
  relay.requests.length = 0;
  const unknown = await cordelia.post('/mobile_push/test_notification', { token: 'not-registered' });
  assert.equal([unknown.status, unknown.body.code, unknown.body.msg], [400, 'INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized']);
  // (The reference's 400 answer is a oneOf of two identical error shapes, which no body matches exactly once.)
  const othersToken = await (await server.as('hamlet@zulip.com')).post('/mobile_push/test_notification', { token: 'android-token' });
  assert.is(othersToken.body.code, 'INVALID_PUSH_DEVICE_TOKEN', 'another user\'s token is not theirs to test');
  assert.equal(relay.requests, [], 'refused tests reach no relay');
  await assertRequiresCredentials(server.anonymous, [['POST', '/mobile_push/test_notification']]);
});

push.run();
