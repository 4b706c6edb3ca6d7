// Jira's webhook through HTTP: the event named in the body (`webhookEvent`, or an old Jira's bare
// transition), each fixture posted to the topic `KEY-123: summary` with who did what to the issue
// (linked to its page), comments quoted in Markdown; events Zulip ignores post nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, type WebhookBot, webhookBot } from '../helpers/webhooks.js';
import { assertCases, assertRefused, assertUnsupported, type Case } from './cases.js';

const jira = suite<{ server: TestServer; bot: WebhookBot }>('Jira webhook');

jira.before(async (context) => {
  context.server = await startTestServer();
  context.bot = await webhookBot(await context.server.as('hamlet@zulip.com'));
});
jira.after(async ({ server }) => server.stop());

const bug15 = '[BUG-15: New bug with hook](http://lfranchi.com:8080/browse/BUG-15)';
const test1 = '[TEST-1: Fix That](https://zulipp.atlassian.net/browse/TEST-1)';

const cases: Case[] = [
  ['created_v2', 'BUG-15: New bug with hook', [`Leo Franchi created ${bug15}:`, '* **Priority**: Major', '* **Assignee**: no one']],
  ['deleted_v2', 'BUG-15: New bug with hook', [`Leo Franchi deleted ${bug15}.`]],
  ['reassigned_v2', 'BUG-15: New bug with hook', [`Leo Franchi updated ${bug15} (assigned to **Leo Franchi**):`, '* Changed assignee to **Leo Franchi**']],
  ['updated_priority_v2', 'TEST-1: Fix That', [`Leonardo Franchi [Administrator] updated ${test1} (assigned to **Leonardo Franchi [Administrator]**):`, '* Changed priority from **Critical** to **Major**']],
  // An old Jira's transition: no webhookEvent, no issue_event_type_name.
  ['change_status_v1', 'TEST-1: Fix That', [`Leonardo Franchi [Administrator] updated ${test1}:`, '* Changed status from **To Do** to **In Progress**']],
  [
    'commented_markup_v1',
    'TEST-7: Testing of rich text',
    [
      'Leonardo Franchi [Administrator] commented on [TEST-7: Testing of rich text](https://zulipp.atlassian.net/browse/TEST-7):\n\n```quote\n',
      'likes to **exercise** a lot of _different_ `conventions` that `jira uses`.',
      '~~~\n\r\nthis code is not highlighted, but monospaced\r\n\n~~~',
      '~~~\n\r\ndef python():',
      '[http://www.google.com](http://www.google.com) is a bare link, and [Google](http://www.google.com) is given a title.',
      '~~~ quote\n\r\nSomeone said somewhere\r\n\n~~~\n```',
    ],
  ],
  ['comment_created', 'ZUL-1: A minor issue', ['Eeshan Garg commented on [ZUL-1: A minor issue](https://zulipintegrations.atlassian.net/browse/ZUL-1):\n\n```quote\nLeaving a comment here! :)\n```']],
  ['comment_updated', 'SP-1: Add support for newer format Jira issue comment events', ['Hemanth V. Alluri edited their comment on [SP-1: ', '```quote\nThis is a very important issue! I’m on it!\n```']],
];

jira('each fixture posts to the issue\'s topic with who did what', async ({ server, bot }) => {
  await assertCases(server, await server.as('hamlet@zulip.com'), bot, 'jira', 'ZulipJiraWebhook', cases);
});

jira('a deleted comment (in an issue update, or comment_deleted) is told, struck through where Jira sends its text', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const update = JSON.parse(fixture('jira', 'commented_markup_v1')) as Record<string, unknown>;
  update.issue_event_type_name = 'issue_comment_deleted';
  delete update.comment;
  const fromUpdate = await postFixture(server, hamlet, bot, 'jira', { body: JSON.stringify(update) });
  assert.is(fromUpdate.content, 'Leonardo Franchi [Administrator] deleted a comment on [TEST-7: Testing of rich text](https://zulipp.atlassian.net/browse/TEST-7).');

  const deleted = { ...(JSON.parse(fixture('jira', 'comment_created')) as Record<string, unknown>), webhookEvent: 'comment_deleted' };
  const fromEvent = await postFixture(server, hamlet, bot, 'jira', { body: JSON.stringify(deleted) });
  assert.is(fromEvent.topic, 'ZUL-1: A minor issue');
  assert.ok(fromEvent.content.includes('Eeshan Garg deleted their comment on [ZUL-1: A minor issue]'), fromEvent.content);
  assert.ok(fromEvent.content.includes('~~Leaving a comment here! :)~~'), fromEvent.content);
});

jira("an old Jira's comment event without the issue is filed under the issue's ID, from the comment's URL", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const comment = JSON.parse(fixture('jira', 'comment_created')) as Record<string, unknown>;
  delete comment.issue;
  const posted = await postFixture(server, hamlet, bot, 'jira', { body: JSON.stringify(comment) });
  assert.is(posted.topic, '10000: (issue title unknown: this Jira does not send it)');
  assert.ok(posted.content.startsWith('Eeshan Garg commented on 10000: (issue title unknown'), posted.content);
});

jira('events Zulip ignores (sprints, worklogs, links…) succeed and post nothing; others are unsupported', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const before = (await postedBy(hamlet, bot.id)).at(-1)?.id;
  for (const event of ['sprint_started', 'worklog_created', 'issuelink_created', 'jira:version_released']) {
    const response = await postWebhook(server, 'jira', bot, { body: JSON.stringify({ webhookEvent: event }), query: { stream: 'Verona' } });
    assert.equal(response.body, { result: 'success', msg: '' }, event);
  }
  assert.is((await postedBy(hamlet, bot.id)).at(-1)?.id, before);
  await assertUnsupported(server, hamlet, bot, 'jira', 'Jira', 'board_created', { body: JSON.stringify({ webhookEvent: 'board_created' }) });
});

jira('a payload naming no event, or an issue event without the issue, is a 400', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  await assertRefused(server, hamlet, bot, 'jira', { body: JSON.stringify({ timestamp: 1 }) }, 'payload.webhookEvent');
  const created = JSON.parse(fixture('jira', 'created_v2')) as Record<string, unknown>;
  delete created.issue;
  await assertRefused(server, hamlet, bot, 'jira', { body: JSON.stringify(created) }, 'payload.issue');
});

jira("Jira's doubly encoded URL parameters are decoded once more, as Zulip does", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  // The query's %20 is sent as %2520, as Jira sends it.
  const posted = await postFixture(server, hamlet, bot, 'jira', { body: fixture('jira', 'created_v2'), query: { topic: 'needs%20triage' } });
  assert.is(posted.topic, 'needs triage');
});

jira('an event named like a property of every object is just unsupported', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    await assertUnsupported(server, hamlet, bot, 'jira', 'Jira', name, { body: JSON.stringify({ webhookEvent: name }) });
  }
});

jira.run();
