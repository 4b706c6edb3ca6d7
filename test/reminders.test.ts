// Reminders (Zulip's "remind me about this message"): a reminder is created for a message the user
// can read, listed apart from scheduled messages, delivered by the notification bot to its owner at
// its time with Zulip's text (a link to the message and a quote of it), cancelled by deleting it,
// and kept across a restart; events keep the owner's clients in step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';
import { TestClock } from './helpers/clock.js';

const reminders = suite<{ server: TestServer }>('reminders');
const clock = new TestClock();

reminders.before(async (context) => {
  context.server = await startTestServer({ clock });
});
reminders.after(async ({ server }) => server.stop());

type Reminder = { reminder_id: number; type: string; to: number[]; content: string; rendered_content: string; scheduled_delivery_timestamp: number; failed: boolean; reminder_target_message_id: number };

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);
const inSeconds = (seconds: number, now = clock.now()): number => Math.floor(now / 1000) + seconds;
async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}
const toVerona = (client: ApiClient, topic: string, content: string) => send(client, { type: 'stream', to: 'Verona', topic, content });
async function list(client: ApiClient): Promise<Reminder[]> {
  const response = await client.get('/reminders');
  assertMatchesReference('GET /reminders', response.body);
  return response.body.reminders as Reminder[];
}
async function remind(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/reminders', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('POST /reminders', response.body);
  return Number(response.body.reminder_id);
}
async function expectError(response: Promise<{ status: number; body: Record<string, unknown> }>, status: number, msg: RegExp): Promise<void> {
  const { status: actual, body } = await response;
  assert.is(actual, status, JSON.stringify(body));
  assert.is(body.code, 'BAD_REQUEST');
  assert.match(String(body.msg), msg);
}

reminders('a reminder about a channel message: listed with Zulip\'s text, apart from scheduled messages', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const me = await idOf(hamlet);
  const author = await idOf(othello);
  const target = await toVerona(othello, 'plans', 'Meet at `noon`\n```\ncode\n```');
  const at = inSeconds(3600);
  const id = await remind(hamlet, { message_id: target, scheduled_delivery_timestamp: at, note: '\n\nbring the map  ' });
  const [reminder, ...rest] = await list(hamlet);
  assert.equal(rest, []);
  assert.equal({ ...reminder!, content: '', rendered_content: '' }, { reminder_id: id, type: 'private', to: [me], content: '', rendered_content: '', scheduled_delivery_timestamp: at, failed: false, reminder_target_message_id: target });
  const verona = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  const realmUrl = String((await register(hamlet, { fetch_event_types: ['realm'] })).state.realm_url);
  assert.is(
    reminder!.content,
    `You requested a reminder for the following message. Note:\n > bring the map\n\n@_**Othello, the Moor of Venice|${author}** [said](${realmUrl}/#narrow/channel/${verona}-Verona/topic/plans/near/${target}) in #**Verona>plans@${target}**:\n\`\`\`\`quote\nMeet at \`noon\`\n\`\`\`\ncode\n\`\`\`\n\`\`\`\``,
  );
  assert.match(reminder!.rendered_content, /<blockquote>/);
  assert.equal((await hamlet.get('/scheduled_messages')).body.scheduled_messages, [], 'not a scheduled message');
  assert.equal(await list(othello), [], 'only its owner sees it');
  await expectError(hamlet.delete(`/scheduled_messages/${id}`), 400, /Scheduled message does not exist/);
  await expectError(hamlet.patch(`/scheduled_messages/${id}`, { content: 'x' }), 400, /Scheduled message does not exist/);
  await hamlet.delete(`/reminders/${id}`);
});

reminders('a reminder about a direct message names who said it to whom; polls are named, not quoted', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const [iagoId, cordeliaId] = [await idOf(iago), await idOf(cordelia)];
  const direct = await send(iago, { type: 'direct', to: [cordeliaId], content: 'psst' });
  const id = await remind(cordelia, { message_id: direct, scheduled_delivery_timestamp: inSeconds(600) });
  const poll = await toVerona(iago, 'vote', '/poll Lunch?\nPizza');
  const pollReminder = await remind(cordelia, { message_id: poll, scheduled_delivery_timestamp: inSeconds(700) });
  const [first, second] = await list(cordelia);
  assert.is(first!.reminder_id, id);
  assert.match(first!.content, /^You requested a reminder for the following direct message\.\n\n/);
  assert.ok(first!.content.includes(`@_**Iago|${iagoId}** [said](`) && first!.content.includes(` to @_**Cordelia, Lear's daughter|${cordeliaId}**:\n\`\`\`quote\npsst\n\`\`\``), first!.content);
  assert.is(second!.reminder_id, pollReminder);
  assert.match(second!.content, new RegExp(`\\[sent\\]\\([^)]+\\) a poll in #\\*\\*Verona>vote@${poll}\\*\\*\\.$`));
  for (const reminder of [id, pollReminder]) await cordelia.delete(`/reminders/${reminder}`);
});

reminders('refused: a past time, a message the user cannot read, a note too long; unknown reminders are 404', async ({ server }) => {
  const prospero = await server.as('prospero@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const hamlet = await idOf(await server.as('hamlet@zulip.com'));
  const target = await toVerona(iago, 'x', 'x');
  await expectError(prospero.post('/reminders', { message_id: target, scheduled_delivery_timestamp: inSeconds(-1) }), 400, /must be in the future/);
  const private_ = await send(iago, { type: 'direct', to: [hamlet], content: 'secret' });
  await expectError(prospero.post('/reminders', { message_id: private_, scheduled_delivery_timestamp: inSeconds(60) }), 400, /Invalid message\(s\)/);
  await expectError(prospero.post('/reminders', { message_id: 999999, scheduled_delivery_timestamp: inSeconds(60) }), 400, /Invalid message\(s\)/);
  await expectError(prospero.post('/reminders', { message_id: target, scheduled_delivery_timestamp: inSeconds(60), note: 'n'.repeat(1001) }), 400, /Maximum reminder note length: 1000 characters/);
  assert.is((await prospero.post('/reminders', { scheduled_delivery_timestamp: inSeconds(60) })).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(await list(prospero), [], 'refused requests stored nothing');
  const mine = await remind(prospero, { message_id: target, scheduled_delivery_timestamp: inSeconds(60), note: 'n'.repeat(1000) });
  const missing = await iago.delete(`/reminders/${mine}`);
  assert.is(missing.status, 404);
  assertMatchesReference('DELETE /reminders/{reminder_id}', missing.body, {}, 404);
  assert.is(missing.body.msg, 'Reminder does not exist');
  const scheduled = await prospero.post('/scheduled_messages', { type: 'direct', to: [hamlet], content: 'later', scheduled_delivery_timestamp: inSeconds(60) });
  await expectError(prospero.delete(`/reminders/${Number(scheduled.body.scheduled_message_id)}`), 404, /Reminder does not exist/);
  const deleted = await prospero.delete(`/reminders/${mine}`);
  assertMatchesReference('DELETE /reminders/{reminder_id}', deleted.body);
  await expectError(prospero.delete(`/reminders/${mine}`), 404, /Reminder does not exist/);
});

reminders('at its time the notification bot sends it to its owner; events keep register in step', async ({ server }) => {
  const desdemona = await server.as('desdemona@zulip.com');
  const desdemonaId = await idOf(desdemona);
  const target = await toVerona(desdemona, 'due', 'the deadline');
  const mine = await register(desdemona, { fetch_event_types: ['reminders'], event_types: ['reminders'] });
  const reader = await register(desdemona, { event_types: ['message'], apply_markdown: false });
  const cancelled = await remind(desdemona, { message_id: target, scheduled_delivery_timestamp: inSeconds(3600) });
  await desdemona.delete(`/reminders/${cancelled}`);
  const id = await remind(desdemona, { message_id: target, scheduled_delivery_timestamp: inSeconds(2) });
  const content = (await list(desdemona))[0]!.content;
  clock.advance(2000);
  const [delivered] = await pollEvents(desdemona, reader.queueId, 1);
  const message = delivered!.message as { sender_full_name: string; type: string; content: string; display_recipient: { id: number }[] };
  assert.equal({ sender: message.sender_full_name, type: message.type, content: message.content }, { sender: 'Notification Bot', type: 'private', content });
  assert.ok(message.display_recipient.some((user) => user.id === desdemonaId));
  assert.equal(await list(desdemona), []);
  const events = await pollEvents(desdemona, mine.queueId, 4);
  assert.equal(events.map((event) => [event.op, event.reminder_id ?? (event.reminders as Reminder[])[0]!.reminder_id]), [['add', cancelled], ['remove', cancelled], ['add', id], ['remove', id]]);
  for (const event of events) {
    assertEventMatchesReference(event);
    applyEvent(mine.state, event);
  }
  assert.equal(comparable(mine.state), comparable((await register(desdemona, { fetch_event_types: ['reminders'] })).state));
});

reminders('reminders survive a restart: on time delivers, more than 10 minutes late fails with a notice', async () => {
  const restartClock = new TestClock();
  const config = testConfig({ clock: restartClock });
  const first = await startTestServer(config);
  const hamlet = await first.as('hamlet@zulip.com');
  const target = await toVerona(hamlet, 'restart', 'remember me');
  const late = await remind(hamlet, { message_id: target, scheduled_delivery_timestamp: inSeconds(60, restartClock.now()) });
  await remind(hamlet, { message_id: target, scheduled_delivery_timestamp: inSeconds(9 * 60, restartClock.now()), note: 'on time' });
  await first.parley.close();

  restartClock.advance(12 * 60 * 1000);
  const second = await startTestServer(config);
  try {
    const again = await second.as('hamlet@zulip.com');
    let remaining: Reminder[] = [];
    for (let tries = 0; tries < 100; tries++) {
      remaining = await list(again);
      if (remaining.length === 1 && remaining[0]!.failed) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(remaining.map((reminder) => [reminder.reminder_id, reminder.failed]), [[late, true]]);
    const dms = await again.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, apply_markdown: false, narrow: [{ operator: 'is', operand: 'dm' }] });
    const contents = (dms.body.messages as { content: string }[]).map((message) => message.content);
    assert.ok(contents.some((text) => text.includes('Note:\n > on time')), 'the on-time reminder was delivered');
    assert.ok(contents.some((text) => text.includes('The reminder you scheduled') && text.includes('Message could not be sent at the scheduled time')), 'the late one failed with a notice');
  } finally {
    await second.stop();
  }
});

reminders('the reminder endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/reminders'],
    ['POST', '/reminders'],
    ['DELETE', '/reminders/1'],
  ]);
});

reminders.run();
