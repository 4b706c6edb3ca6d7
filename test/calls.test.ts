// Video calls (spec endpoint 22): no provider, a Jitsi-style server, and an OAuth provider whose
// flow sets has_provider_token (register and event) — tested against a provider on loopback.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { listenOnLoopback, type LoopbackServer } from './helpers/loopback.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { readSignedMeeting } from '../src/calls/bigBlueButton.js';
import { startTestServer } from './helpers/server.js';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { createHash } from 'node:crypto';

const calls = suite('video calls');

/** A Zoom-style provider: one valid code, one token it may revoke, meetings for that token. */
class FakeProvider {
  token = 'token-1';
  private server: LoopbackServer | undefined;

  get url(): string {
    return this.server!.url;
  }

  static async start(): Promise<FakeProvider> {
    const provider = new FakeProvider();
    provider.server = await listenOnLoopback((request, body, response) => {
      if (request.url === '/token') {
        const form = new URLSearchParams(body);
        const valid = form.get('code') === 'good-code' && form.get('client_secret') === 'secret' && form.get('grant_type') === 'authorization_code';
        response.writeHead(valid ? 200 : 400, { 'Content-Type': 'application/json' }).end(JSON.stringify(valid ? { access_token: provider.token } : { error: 'invalid_grant' }));
      } else if (request.url === '/meetings') {
        const authorized = request.headers.authorization === `Bearer ${provider.token}`;
        response.writeHead(authorized ? 201 : 401, { 'Content-Type': 'application/json' }).end(JSON.stringify(authorized ? { join_url: 'https://video.example/j/42' } : {}));
      } else response.writeHead(404).end();
    });
    return provider;
  }

  close(): Promise<void> {
    return this.server!.close();
  }
}

calls('without a provider: a clear error, and has_provider_token is false', async () => {
  const server = await startTestServer();
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const response = await hamlet.post('/calls/provider/create');
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', 'Video calls are not configured on this server']);
    assert.is((await register(hamlet, { fetch_event_types: ['video_calls'] })).state.has_provider_token, false);
    await assertRequiresCredentials(server.anonymous, [
      ['POST', '/calls/provider/create'],
      ['GET', '/calls/provider/register'],
    ]);
  } finally {
    await server.stop();
  }
});

calls('a Jitsi-style server: a new room per call, no authorization needed', async () => {
  const server = await startTestServer({ videoProvider: { kind: 'jitsi', serverUrl: 'https://meet.example.org' } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const first = await hamlet.post('/calls/provider/create');
    const second = await hamlet.post('/calls/provider/create');
    assert.is(first.status, 200);
    assert.match(String(first.body.url), /^https:\/\/meet\.example\.org\/[0-9a-f]{24}$/);
    assert.is.not(first.body.url, second.body.url);
    assert.is((await register(hamlet, { fetch_event_types: ['video_calls'] })).state.has_provider_token, true);
    assert.is((await hamlet.get('/calls/provider/register')).status, 400, 'nothing to authorize');
  } finally {
    await server.stop();
  }
});

calls('an OAuth provider: the flow sets has_provider_token (register and event); a revoked token clears it', async () => {
  const provider = await FakeProvider.start();
  const server = await startTestServer({
    videoProvider: { kind: 'oauth', authorizeUrl: `${provider.url}/authorize`, tokenUrl: `${provider.url}/token`, createMeetingUrl: `${provider.url}/meetings`, clientId: 'parley', clientSecret: 'secret' },
  });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const othello = await server.as('othello@zulip.com');
    const state = await register(hamlet, { fetch_event_types: ['video_calls'], event_types: ['has_provider_token'] });
    const bystander = await register(othello, { event_types: ['has_provider_token'] });
    assert.is(state.state.has_provider_token, false);
    const early = await hamlet.post('/calls/provider/create');
    assert.equal([early.status, early.body.code], [400, 'BAD_REQUEST']);
    assert.match(String(early.body.msg), /Authorize the video call provider first/);

    const started = await hamlet.get('/calls/provider/register');
    const authorize = new URL(String(started.body.url));
    assert.is(`${authorize.origin}${authorize.pathname}`, `${provider.url}/authorize`);
    assert.equal([authorize.searchParams.get('client_id'), authorize.searchParams.get('response_type')], ['parley', 'code']);
    assert.match(authorize.searchParams.get('redirect_uri')!, /\/api\/v1\/calls\/provider\/complete$/);
    const stateParam = authorize.searchParams.get('state')!;

    const forged = await server.anonymous.get('/calls/provider/complete', { code: 'good-code', state: 'forged' });
    assert.equal([forged.status, forged.body.msg], [400, 'Invalid or expired authorization state']);
    const badCode = await server.anonymous.get('/calls/provider/complete', { code: 'bad-code', state: stateParam });
    assert.equal([badCode.status, badCode.body.msg], [400, 'The video call provider refused the authorization']);
    const again = new URL(String((await hamlet.get('/calls/provider/register')).body.url)).searchParams.get('state')!;
    const completed = await server.anonymous.get('/calls/provider/complete', { code: 'good-code', state: again });
    assert.is(completed.status, 200, JSON.stringify(completed.body));
    const reused = await server.anonymous.get('/calls/provider/complete', { code: 'good-code', state: again });
    assert.is(reused.status, 400, 'a state is used once');

    const created = await hamlet.post('/calls/provider/create');
    assert.equal([created.status, created.body.url], [200, 'https://video.example/j/42']);

    provider.token = 'token-2';
    const revoked = await hamlet.post('/calls/provider/create');
    assert.match(String(revoked.body.msg), /Authorize the video call provider first/);

    const events = (await hamlet.get('/events', { queue_id: state.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
    assert.equal(events.map((event) => [event.type, event.value]), [['has_provider_token', true], ['has_provider_token', false]]);
    // The spec's has_provider_token is Zulip's has_zoom_token under another name.
    for (const event of events) assertEventMatchesReference({ ...event, type: 'has_zoom_token' });
    for (const event of events) applyEvent(state.state, event);
    assert.equal(comparable(state.state), comparable((await register(hamlet, { fetch_event_types: ['video_calls'] })).state));
    assert.equal((await othello.get('/events', { queue_id: bystander.queueId, last_event_id: -1, dont_block: true })).body.events, [], 'only the user hears of their token');
  } finally {
    await server.stop();
    await provider.close();
  }
});

calls('BigBlueButton: a signed join link per meeting, which only the server\'s secret verifies; refused when not configured', async () => {
  const unconfigured = await startTestServer();
  try {
    const refused = await (await unconfigured.as('hamlet@zulip.com')).get('/calls/bigbluebutton/create', { meeting_name: 'standup' });
    assert.equal({ status: refused.status, msg: refused.body.msg }, { status: 400, msg: 'BigBlueButton is not configured.' });
  } finally {
    await unconfigured.stop();
  }
  const secret = 'bbb-shared-secret';
  const server = await startTestServer({ bigBlueButton: { url: 'https://bbb.example.org/bigbluebutton', secret } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const hamletId = Number((await hamlet.get('/users/me')).body.user_id);
    const voice = await hamlet.get('/calls/bigbluebutton/create', { meeting_name: 'standup', voice_only: true });
    assert.is(voice.status, 200, JSON.stringify(voice.body));
    assertMatchesReference('GET /calls/bigbluebutton/create', voice.body);
    const url = String(voice.body.url);
    assert.match(url, /^\/calls\/bigbluebutton\/join\?bigbluebutton=/);
    const signed = new URL(url, 'https://x').searchParams.get('bigbluebutton')!;
    const meeting = readSignedMeeting(secret, signed)!;
    assert.match(meeting.meeting_id, /^zulip-\d{12}$/);
    assert.equal({ ...meeting, meeting_id: '' }, { meeting_id: '', name: 'standup', lock_settings_disable_cam: true, moderator: hamletId });
    assert.not.ok(url.includes(secret), 'the secret stays on the server');
    assert.is(readSignedMeeting('another secret', signed), undefined);
    const mac = signed.split(':')[1]!;
    const forged = Buffer.from(JSON.stringify({ ...meeting, meeting_id: 'zulip-000000000001' })).toString('base64url');
    assert.is(readSignedMeeting(secret, `${forged}:${mac}`), undefined, 'an edited meeting does not verify');
    const video = await hamlet.get('/calls/bigbluebutton/create', { meeting_name: 'standup' });
    const second = readSignedMeeting(secret, new URL(String(video.body.url), 'https://x').searchParams.get('bigbluebutton')!)!;
    assert.is(second.lock_settings_disable_cam, false);
    assert.is.not(second.meeting_id, meeting.meeting_id, 'a new meeting each time');
    assert.is((await hamlet.get('/calls/bigbluebutton/create')).body.code, 'REQUEST_VARIABLE_MISSING');
    await assertRequiresCredentials(server.anonymous, [['GET', '/calls/bigbluebutton/create']]);
  } finally {
    await server.stop();
  }
});

/** A BigBlueButton server: checks each create's checksum with the shared secret, and answers as
 * BigBlueButton's API does (a checksum error when the secret differs). */
async function fakeBigBlueButton(secret: string) {
  const created: URLSearchParams[] = [];
  const server = await listenOnLoopback((request, _body, response) => {
    const url = new URL(request.url!, 'http://bbb');
    const query = url.search.slice(1).replace(/&checksum=[0-9a-f]+$/, '');
    const valid = url.searchParams.get('checksum') === createHash('sha256').update(`create${query}${secret}`).digest('hex');
    if (url.pathname === '/bigbluebutton/api/create' && valid) created.push(url.searchParams);
    const xml = valid
      ? '<response><returncode>SUCCESS</returncode><meetingID>m</meetingID><createTime>1700000000123</createTime></response>'
      : '<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>';
    response.writeHead(200, { 'Content-Type': 'text/xml' }).end(xml);
  });
  return { url: `${server.url}/bigbluebutton/`, created, close: () => server.close() };
}

calls("BigBlueButton's join page: a person signs in, the meeting is created on the BigBlueButton server and they are sent there, its creator as moderator", async () => {
  const secret = 'bbb-join-secret';
  const bbb = await fakeBigBlueButton(secret);
  const server = await startTestServer({ bigBlueButton: { url: bbb.url, secret } });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const link = String((await hamlet.get('/calls/bigbluebutton/create', { meeting_name: 'Stand up & talk', voice_only: true })).body.url);
    const signed = new URL(link, 'https://x').searchParams.get('bigbluebutton')!;
    const shown = await fetch(`${server.baseUrl}${link}`);
    assert.is(shown.status, 200);
    const form = await shown.text();
    assert.ok(form.includes('Stand up &amp; talk') && form.includes('name="password"'), form);
    const join = (username: string, password: string, signedValue = signed) =>
      fetch(`${server.baseUrl}/calls/bigbluebutton/join`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ bigbluebutton: signedValue, username, password }) });

    const wrong = await join('othello@zulip.com', 'not the password');
    assert.is(wrong.status, 400);
    assert.ok((await wrong.text()).includes('value="othello@zulip.com"'), 'the form again, with what was typed');
    assert.is(bbb.created.length, 0, 'no meeting for a failed sign-in');

    const joinUrl = async (email: string) => {
      const response = await join(email, DEMO_PASSWORD);
      assert.is(response.status, 302, await response.text());
      return new URL(response.headers.get('location')!);
    };
    const othello = await joinUrl('othello@zulip.com');
    assert.is(othello.origin + othello.pathname, `${new URL(bbb.url).origin}/bigbluebutton/api/join`);
    assert.equal(Object.fromEntries([...othello.searchParams].filter(([name]) => name !== 'checksum')), { meetingID: readSignedMeeting(secret, signed)!.meeting_id, role: 'VIEWER', fullName: 'Othello, the Moor of Venice', createTime: '1700000000123' });
    const query = othello.search.slice(1).replace(/&checksum=[0-9a-f]+$/, '');
    assert.is(othello.searchParams.get('checksum'), createHash('sha256').update(`join${query}${secret}`).digest('hex'), 'BigBlueButton can verify the join');
    assert.is((await joinUrl('hamlet@zulip.com')).searchParams.get('role'), 'MODERATOR', 'the creator moderates');
    assert.equal(bbb.created.map((params) => [params.get('name'), params.get('lockSettingsDisableCam')]), [['Stand up & talk', 'true'], ['Stand up & talk', 'true']]);

    const forged = await join('othello@zulip.com', DEMO_PASSWORD, `${signed}x`);
    assert.is(forged.status, 400);
    assert.ok((await forged.text()).includes('Invalid signature.'));
  } finally {
    await server.stop();
  }
  const misconfigured = await startTestServer({ bigBlueButton: { url: bbb.url, secret: 'not the server secret' } });
  try {
    const link = String((await (await misconfigured.as('hamlet@zulip.com')).get('/calls/bigbluebutton/create', { meeting_name: 'x' })).body.url);
    const signed = new URL(link, 'https://x').searchParams.get('bigbluebutton')!;
    const refused = await fetch(`${misconfigured.baseUrl}/calls/bigbluebutton/join`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ bigbluebutton: signed, username: 'hamlet@zulip.com', password: DEMO_PASSWORD }) });
    assert.is(refused.status, 400);
    assert.ok((await refused.text()).includes('Error authenticating to the BigBlueButton server.'));
  } finally {
    await misconfigured.stop();
    await bbb.close();
  }
});

calls.run();
