// Missed-message e-mail (issue #20): a user with no client connected who gets a direct message or
// a mention gets, once their batching period is over, one e-mail for the batch through a real SMTP
// server (loopback), grouped by conversation, from PARLEY_EMAIL_FROM, with a working one-click
// unsubscribe link; read messages are left out, the settings and the realm's policy are honoured,
// and a pending batch survives a restart. Invitations by e-mail go through the same transport.
// That one e-mail tells of at most 500 messages is in the fault tier (test/faults/missedEmailBatch.fault.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { TestClock } from './helpers/clock.js';
import { applyEvent, comparable, pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { nextSettlement, settlements } from './helpers/notifier.js';
import { FakeSmtp, type ReceivedMail } from './helpers/smtp.js';
import { withUnseenWriter } from './helpers/restrictedGuests.js';
import { startTestServer, testConfig, waitFor, type TestServer } from './helpers/server.js';

const FROM = 'Parley Notifications <noreply@parley.test>';
const PERIOD_MS = 120_000;

interface Context {
  server: TestServer;
  smtp: FakeSmtp;
  clock: TestClock;
}

const emails = suite<Context>('missed-message e-mail');

emails.before(async (context) => {
  context.smtp = await FakeSmtp.start();
  context.clock = new TestClock();
  context.server = await startTestServer({ clock: context.clock, mail: { url: context.smtp.url, from: FROM } });
});
emails.after(async ({ server, smtp }) => {
  await server.stop();
  await smtp.close();
});
emails.before.each(({ smtp }) => {
  smtp.mails.length = 0;
  smtp.refusing = false;
});

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

const dm = async (from: ApiClient, to: ApiClient, content: string): Promise<number> => send(from, { type: 'direct', to: JSON.stringify([await idOf(to)]), content });

/** Moves the clock past a batching period and waits for the notifier's pass to be recorded. */
async function afterPeriod({ server, clock }: Context, ms = PERIOD_MS): Promise<void> {
  const before = await settlements(server);
  clock.advance(ms);
  await nextSettlement(server, before);
}

emails('a direct message and a mention: one e-mail after the batching period, grouped by conversation, with a working one-click unsubscribe link', async (context) => {
  const { server, smtp, clock } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const first = await dm(hamlet, cordelia, 'Are you **there**?');
  const second = await dm(hamlet, cordelia, 'Second thoughts & <worries>');
  const mention = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'plans', content: '@**Cordelia, Lear\'s daughter** see this' });
  clock.advance(PERIOD_MS - 5_000);
  await server.parley.realms.idle();
  assert.equal(smtp.mails, [], 'not before the batching period is over');
  await afterPeriod(context, 5_000);
  const mails = smtp.to('cordelia@zulip.com');
  assert.is(mails.length, 1, 'one e-mail for the batch');
  const [{ parsed, envelopeFrom }] = mails as [ReceivedMail];
  assert.equal(parsed.from?.value.map(({ name, address }) => `${name} <${address}>`), [FROM]);
  assert.is(envelopeFrom, 'noreply@parley.test');
  assert.is(parsed.subject, 'New messages in Zulip Dev');
  const text = parsed.text ?? '';
  const html = String(parsed.html);
  assert.match(text, /DMs with King Hamlet/);
  assert.match(text, /#Verona > plans/);
  assert.match(text, /King Hamlet: Are you there\?/);
  assert.match(text, /King Hamlet: Second thoughts & <worries>/);
  assert.match(html, /Second thoughts &amp; &lt;worries&gt;/, 'the HTML part escapes the content');
  assert.match(html, /<strong>there<\/strong>/, 'the HTML part carries the rendered message');
  const base = `http://${server.config.externalHost}`;
  assert.ok(text.includes(`${base}/#narrow/dm/${await idOf(hamlet)}-dm`), 'a link to the conversation');
  assert.ok(text.indexOf('DMs with King Hamlet') < text.indexOf('#Verona > plans'), 'conversations in the order their messages came');
  assert.ok(first < second && second < mention);

  const rawHeader = (name: string) => parsed.headerLines.find((line) => line.key === name)?.line ?? '';
  const unsubscribeHeader = rawHeader('list-unsubscribe');
  const link = /<(http[^>]+)>/.exec(unsubscribeHeader)?.[1];
  assert.ok(link?.startsWith(`${base}/accounts/unsubscribe/missed_messages/`), unsubscribeHeader);
  assert.ok(html.includes(link!), 'the link is in the e-mail too');
  assert.is(rawHeader('list-unsubscribe-post'), 'List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  // The realm's URL names its external host; the test reaches the same server on its port.
  const local = `${server.baseUrl}${new URL(link!).pathname}`;
  const forged = await fetch(local.replace(/[0-9a-f]{4}$/, '0000'));
  assert.is(forged.status, 400);
  assert.match(await forged.text(), /Invalid unsubscribe link/);
  const watching = await register(cordelia, { fetch_event_types: ['user_settings', 'update_global_notifications'], event_types: ['user_settings', 'update_global_notifications'] });
  const page = await fetch(local);
  assert.is(page.status, 200);
  assert.match(await page.text(), /no longer get e-mails/);
  const events = await pollEvents(cordelia, watching.queueId, 2);
  assert.equal(
    events.map((event) => [event.type, event.property ?? event.notification_name, event.value ?? event.setting]),
    [
      ['user_settings', 'enable_offline_email_notifications', false],
      ['update_global_notifications', 'enable_offline_email_notifications', false],
    ],
  );
  for (const event of events) {
    assertEventMatchesReference(event);
    applyEvent(watching.state, event);
  }
  const state = await register(cordelia, { fetch_event_types: ['user_settings', 'update_global_notifications'] });
  assert.is((state.state.user_settings as Record<string, unknown>).enable_offline_email_notifications, false);
  assert.equal(comparable(watching.state), comparable(state.state), 'register + events == fresh register');
  for (const queueId of [watching.queueId, state.queueId]) await cordelia.delete('/events', { queue_id: queueId });
  const again = await fetch(local, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  assert.is(again.status, 200, 'one-click POST (RFC 8058) works as well');
  await dm(hamlet, cordelia, 'after unsubscribing');
  await dm(hamlet, await server.as('desdemona@zulip.com'), 'to someone subscribed');
  await afterPeriod(context);
  assert.is(smtp.to('desdemona@zulip.com').length, 1);
  assert.is(smtp.to('cordelia@zulip.com').length, 1, 'no more e-mails once unsubscribed');
  await cordelia.patch('/settings', { enable_offline_email_notifications: true });
});

emails('messages read before the batch goes out are left out; a batch all read sends nothing', async (context) => {
  const { server, smtp } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const read = await dm(hamlet, prospero, 'this one gets read');
  await dm(hamlet, prospero, 'this one does not');
  const readToo = await dm(hamlet, othello, 'othello reads everything');
  await prospero.post('/messages/flags', { messages: JSON.stringify([read]), op: 'add', flag: 'read' });
  await othello.post('/messages/flags', { messages: JSON.stringify([readToo]), op: 'add', flag: 'read' });
  await afterPeriod(context);
  const [mail] = smtp.to('prospero@zulip.com');
  assert.ok(mail);
  assert.is(mail.parsed.subject, 'DMs with King Hamlet');
  assert.match(mail.parsed.text ?? '', /this one does not/);
  assert.not.match(mail.parsed.text ?? '', /gets read/);
  assert.is(smtp.to('othello@zulip.com').length, 0);
});

emails('no e-mail for a connected user, nor with e-mail notifications off; a queue opened later does not cancel; content follows the settings and the realm\'s policy', async (context) => {
  const { server, smtp } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const connected = await register(iago, { event_types: ['message'] });
  await dm(hamlet, iago, 'you are online');
  await iago.delete('/events', { queue_id: connected.queueId });
  assert.is((await cordelia.patch('/settings', { enable_offline_email_notifications: false })).status, 200);
  await dm(hamlet, cordelia, 'you turned e-mails off');
  await dm(hamlet, prospero, 'away when this came');
  const later = await register(prospero, { event_types: ['message'] });
  await afterPeriod(context);
  assert.is(smtp.to('iago@zulip.com').length, 0);
  assert.is(smtp.to('cordelia@zulip.com').length, 0);
  assert.is(smtp.to('prospero@zulip.com').length, 1, 'the queue opened later did not cancel it');
  await prospero.delete('/events', { queue_id: later.queueId });
  await cordelia.patch('/settings', { enable_offline_email_notifications: true });

  assert.is((await prospero.patch('/settings', { message_content_in_email_notifications: false })).status, 200);
  await dm(hamlet, prospero, 'secret content');
  assert.is((await iago.patch('/realm', { message_content_allowed_in_email_notifications: false })).status, 200);
  await dm(hamlet, cordelia, 'also secret');
  await afterPeriod(context);
  for (const address of ['prospero@zulip.com', 'cordelia@zulip.com']) {
    const mail = smtp.to(address).at(-1)!;
    assert.not.match(`${mail.parsed.text}${String(mail.parsed.html)}`, /secret/, address);
    assert.match(mail.parsed.text ?? '', /King Hamlet sent you a message/, address);
  }
  await iago.patch('/realm', { message_content_allowed_in_email_notifications: true });
  await prospero.patch('/settings', { message_content_in_email_notifications: true });
});

emails("a restricted guest's e-mail names a sender they may not see as an Unknown user, as their push notifications do", async (context) => {
  const { server, smtp } = context;
  await withUnseenWriter(server, { email: 'emailer@zulip.com', fullName: 'Outside Emailer' }, async (outsider) => {
    await send(outsider, { type: 'stream', to: 'Verona', topic: 'visitors', content: '@**Polonius** hello from outside' });
    await afterPeriod(context);
    const [mail] = smtp.to('polonius@zulip.com') as [ReceivedMail];
    assert.ok(mail, 'the guest is e-mailed');
    const text = mail.parsed.text ?? '';
    assert.match(text, /Unknown user: @Polonius hello from outside/);
    assert.not.match(`${text}${String(mail.parsed.html)}`, /outside emailer|emailer@/i);
  });
});

emails('the batching period is the user\'s setting, which register reports', async (context) => {
  const { server, smtp } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const refused = await othello.patch('/settings', { email_notifications_batching_period_seconds: 60 });
  assert.equal([refused.status, refused.body.msg], [400, 'Invalid email_notifications_batching_period_seconds']);
  assert.is((await othello.patch('/settings', { email_notifications_batching_period_seconds: 600 })).status, 200);
  const state = await register(othello, { fetch_event_types: ['user_settings'] });
  assert.is((state.state.user_settings as Record<string, unknown>).email_notifications_batching_period_seconds, 600);
  await othello.delete('/events', { queue_id: state.queueId });
  await dm(hamlet, othello, 'in ten minutes');
  // Desdemona's batch (the default two minutes) is sent in the pass five minutes on.
  await dm(hamlet, await server.as('desdemona@zulip.com'), 'in two minutes');
  await afterPeriod(context, 300_000);
  assert.is(smtp.to('desdemona@zulip.com').length, 1);
  assert.is(smtp.to('othello@zulip.com').length, 0, 'not after five minutes');
  await afterPeriod(context, 300_000);
  assert.is(smtp.to('othello@zulip.com').length, 1);
  await othello.patch('/settings', { email_notifications_batching_period_seconds: 120 });
});

emails('an SMTP server that refuses is tried again later; the e-mail goes out once', async (context) => {
  const { server, smtp } = context;
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  smtp.refusing = true;
  await dm(hamlet, iago, 'through a flaky server');
  await afterPeriod(context);
  assert.is(smtp.mails.length, 0);
  smtp.refusing = false;
  await afterPeriod(context, 60_000);
  assert.is(smtp.to('iago@zulip.com').length, 1);
  await dm(hamlet, await server.as('desdemona@zulip.com'), 'a later batch');
  await afterPeriod(context, 3600_000);
  assert.is(smtp.to('desdemona@zulip.com').length, 1);
  assert.is(smtp.to('iago@zulip.com').length, 1, 'sent once');
});

emails('a pending batch survives a restart', async ({ smtp }) => {
  const clock = new TestClock();
  const config = testConfig({ clock, mail: { url: smtp.url, from: FROM } });
  const first = await startTestServer(config);
  const hamlet = await first.as('hamlet@zulip.com');
  await dm(hamlet, await first.as('othello@zulip.com'), 'before the restart');
  await first.parley.close();
  clock.advance(PERIOD_MS);
  const second = await startTestServer(config);
  try {
    await waitFor(() => smtp.to('othello@zulip.com').length === 1);
    assert.match(smtp.to('othello@zulip.com')[0]!.parsed.text ?? '', /before the restart/);
  } finally {
    await second.stop();
  }
});

emails('e-mail invitations go out through the transport: one link per address, for that address, used once; listed, resent, revoked', async ({ server, smtp }) => {
  const iago = await server.as('iago@zulip.com');
  const invite = (params: Record<string, unknown>) => iago.post('/invites', { stream_ids: JSON.stringify([]), ...params });
  const invalid = await invite({ invitee_emails: 'viola@example.com, not-an-address' });
  assert.equal([invalid.status, invalid.body.msg], [400, "Some emails did not validate, so we didn't send any invitations."]);
  const member = await invite({ invitee_emails: 'viola@example.com, hamlet@zulip.com' });
  assert.equal([member.status, member.body.msg], [400, "hamlet@zulip.com: already in this organization, so we didn't send any invitations."]);
  assert.is(smtp.mails.length, 0, 'a refused request sends nothing');

  const sent = await invite({ invitee_emails: 'viola@example.com\nsebastian@example.com', invite_as: 400 });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assertMatchesReference('POST /invites', sent.body);
  await waitFor(() => smtp.mails.length === 2);
  const mail = smtp.to('viola@example.com')[0]!;
  assert.equal(mail.parsed.from?.value.map(({ name, address }) => `${name} <${address}>`), [FROM]);
  assert.is(mail.parsed.subject, 'Iago invited you to Zulip Dev');
  const link = /(http\S+\/join\/[0-9a-f]+\/)/.exec(mail.parsed.text ?? '')?.[1];
  assert.ok(link, mail.parsed.text);
  assert.ok(String(mail.parsed.html).includes(link!));

  const listed = await iago.get('/invites');
  assertMatchesReference('GET /invites', listed.body);
  const entries = listed.body.invites as { id: number; email?: string; is_multiuse: boolean; link_url?: string }[];
  const viola = entries.find((entry) => entry.email === 'viola@example.com')!;
  const sebastian = entries.find((entry) => entry.email === 'sebastian@example.com')!;
  assert.equal([viola.is_multiuse, viola.link_url], [false, undefined]);

  const resent = await iago.post(`/invites/${sebastian.id}/resend`);
  assert.is(resent.status, 200);
  await waitFor(() => smtp.to('sebastian@example.com').length === 2);
  assert.is((await iago.delete(`/invites/${sebastian.id}`)).status, 200);
  assert.equal((await iago.post(`/invites/${sebastian.id}/resend`)).body.msg, 'No such invitation');

  const page = `${server.baseUrl}${new URL(link!).pathname}`;
  const join = (email: string) => fetch(page, { method: 'POST', body: new URLSearchParams({ email, full_name: 'Viola', password: 'long enough' }) });
  const other = await join('orsino@example.com');
  assert.is(other.status, 400);
  assert.match(await other.text(), /This invitation is for viola@example\.com/);
  const joined = await join('viola@example.com');
  assert.is(joined.status, 200);
  assert.match(await joined.text(), /viola@example\.com/);
  assert.is((await join('viola@example.com')).status, 400, 'used once');
  const users = (await iago.get('/users')).body.members as { email: string; delivery_email?: string | null }[];
  assert.ok(users.some((user) => user.delivery_email === 'viola@example.com' || user.email === 'viola@example.com'));
});

emails('an invitation the mail server refuses is not kept, and the answer says so', async ({ server, smtp }) => {
  const iago = await server.as('iago@zulip.com');
  smtp.refusing = true;
  const refused = await iago.post('/invites', { invitee_emails: 'olivia@example.com', stream_ids: JSON.stringify([]) });
  assert.equal([refused.status, refused.body.code], [502, 'EMAIL_NOT_SENT']);
  assert.match(String(refused.body.msg), /olivia@example\.com/);
  const entries = (await iago.get('/invites')).body.invites as { email?: string }[];
  assert.not.ok(entries.some((entry) => entry.email === 'olivia@example.com'));
});

emails.run();
