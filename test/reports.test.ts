// Moderation reports (POST /messages/{message_id}/report): refused until the organization names a
// moderation request channel; then the notification bot posts Zulip's report there, in a topic named
// for the reported user: who reported whom and when, the type and description quoted, the message
// behind a spoiler with a link to it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const reports = suite<{ server: TestServer; moderation: number }>('moderation reports');

reports.before(async (context) => {
  context.server = await startTestServer();
});
reports.after(async ({ server }) => server.stop());

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}
async function expectError(response: Promise<{ status: number; body: Record<string, unknown> }>, msg: RegExp): Promise<void> {
  const { status, body } = await response;
  assert.is(status, 400, JSON.stringify(body));
  assert.match(String(body.msg), msg);
  assertMatchesReference('POST /messages/{message_id}/report', body, {}, 400);
}
type Sent = { content: string; subject: string; sender_full_name: string; display_recipient: string };
/** The newest message in the moderation channel, as Markdown. */
async function latestReport(client: ApiClient, channel: number): Promise<Sent> {
  const response = await client.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false, narrow: [{ operator: 'channel', operand: channel }] });
  return (response.body.messages as Sent[])[0]!;
}

reports('refused while no moderation request channel is set; setting one is a realm update event', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const target = await send(iago, { type: 'stream', to: 'Verona', topic: 'rude', content: 'rude words' });
  await expectError(hamlet.post(`/messages/${target}/report`, { report_type: 'spam' }), /^Moderation request channel must be specified to enable message reporting\.$/);
  await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'moderation' }], invite_only: true });
  const moderation = Number((await iago.get('/get_stream_id', { stream: 'moderation' })).body.stream_id);
  const queue = await register(hamlet, { event_types: ['realm'] });
  const set = await iago.patch('/realm', { moderation_request_channel_id: moderation });
  assert.is(set.status, 200, JSON.stringify(set.body));
  const [event] = await pollEvents(hamlet, queue.queueId, 1);
  assertEventMatchesReference(event!);
  assert.equal({ type: event!.type, property: event!.property, value: event!.value }, { type: 'realm', property: 'moderation_request_channel_id', value: moderation }, JSON.stringify(event));
  assert.is((await register(hamlet, { fetch_event_types: ['realm'] })).state.realm_moderation_request_channel_id, moderation);
});

reports('a report on a channel message, as Zulip writes it, in the reported user\'s topic', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const [hamletId, othelloId] = [await idOf(hamlet), await idOf(othello)];
  const moderation = Number((await iago.get('/get_stream_id', { stream: 'moderation' })).body.stream_id);
  const target = await send(othello, { type: 'stream', to: 'Verona', topic: 'rude', content: 'you are all ```wrong```' });
  const sentAt = Number(((await othello.get(`/messages/${target}`)).body.message as { timestamp: number }).timestamp);
  const response = await hamlet.post(`/messages/${target}/report`, { report_type: 'harassment', description: 'Insults the team.' });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /messages/{message_id}/report', response.body);
  const report = await latestReport(iago, moderation);
  const time = new Date(sentAt * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  assert.equal({ sender: report.sender_full_name, topic: report.subject }, { sender: 'Notification Bot', topic: 'Othello, the Moor of Venice moderation' });
  assert.is(
    report.content,
    `@_**King Hamlet|${hamletId}** reported a message sent by @_**Othello, the Moor of Venice|${othelloId}** at <time:${time}>.\n\`\`\`quote\n**Harassment**. Insults the team.\n\`\`\`\n\n\`\`\`\` spoiler Original message at #**Verona>rude@${target}**\nyou are all \`\`\`wrong\`\`\`\n\`\`\`\``,
  );
  // Hamlet is not in the private moderation channel: he cannot read his own report there.
  const hamletView = await hamlet.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: moderation }] });
  assert.equal(hamletView.body.messages ?? [], []);
});

reports('a report on a direct message names the recipients and links to it', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const prospero = await server.as('prospero@zulip.com');
  const [cordeliaId, prosperoId, iagoId] = [await idOf(cordelia), await idOf(prospero), await idOf(iago)];
  const moderation = Number((await iago.get('/get_stream_id', { stream: 'moderation' })).body.stream_id);
  const oneToOne = await send(prospero, { type: 'direct', to: [cordeliaId], content: 'spam spam' });
  await cordelia.post(`/messages/${oneToOne}/report`, { report_type: 'spam' });
  let report = await latestReport(iago, moderation);
  assert.match(report.content, new RegExp(`^@_\\*\\*Cordelia, Lear's daughter\\|${cordeliaId}\\*\\* reported a message sent by @_\\*\\*Prospero from The Tempest\\|${prosperoId}\\*\\* at <time:[^>]+>\\.\n`));
  assert.match(report.content, new RegExp(`\`\`\` spoiler \\[Original message\\]\\(http[^)]+#narrow/dm/[^)]+/near/${oneToOne}\\)\nspam spam\n\`\`\`$`));
  assert.match(report.content, /\*\*Spam\*\*\. \n/);
  const group = await send(prospero, { type: 'direct', to: [cordeliaId, iagoId], content: 'group spam' });
  await cordelia.post(`/messages/${group}/report`, { report_type: 'norms', description: 'again' });
  report = await latestReport(iago, moderation);
  assert.match(report.content, / to @_\*\*Iago\|\d+\*\* and @_\*\*Cordelia, Lear's daughter\|\d+\*\* at <time:/, report.content);
  assert.match(report.content, /\*\*Violates community norms\*\*\. again/);
});

reports('refused: "other" without a description, a description too long, a message the user cannot read', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const moderation = Number((await iago.get('/get_stream_id', { stream: 'moderation' })).body.stream_id);
  const before = (await latestReport(iago, moderation)).content;
  const target = await send(iago, { type: 'stream', to: 'Verona', topic: 'fine', content: 'fine' });
  await expectError(hamlet.post(`/messages/${target}/report`, { report_type: 'other' }), /An explanation is required/);
  await expectError(hamlet.post(`/messages/${target}/report`, { report_type: 'spam', description: 'd'.repeat(1001) }), /description is too long \(limit: 1000 characters\)/);
  const secret = await send(iago, { type: 'direct', to: [await idOf(await server.as('othello@zulip.com'))], content: 'secret' });
  await expectError(hamlet.post(`/messages/${secret}/report`, { report_type: 'spam' }), /Invalid message\(s\)/);
  await expectError(hamlet.post('/messages/999999/report', { report_type: 'spam' }), /Invalid message\(s\)/);
  const badType = await hamlet.post(`/messages/${target}/report`, { report_type: 'boring' });
  assert.is(badType.status, 400);
  assert.is((await latestReport(iago, moderation)).content, before, 'refused reports posted nothing');
  const other = await hamlet.post(`/messages/${target}/report`, { report_type: 'other', description: 'd'.repeat(1000) });
  assert.is(other.status, 200, JSON.stringify(other.body));
  assert.match((await latestReport(iago, moderation)).content, /\*\*Other reason\*\*\. d{1000}\n/);
});

reports('reporting requires credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [['POST', '/messages/1/report']]);
});

reports.run();
