// Slack-compatible incoming webhooks through HTTP: what tools that post to Slack send (text, Block
// Kit blocks, legacy attachments; JSON or a form's `payload` field), posted in Zulip's Markdown to the
// URL's topic, the payload's channel, or "(no topic)". There are no event types, so no unsupported
// ones: every payload is a message.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { postedBy, postFixture, postWebhook, type WebhookBot, webhookBot } from '../helpers/webhooks.js';
import { assertCases, assertRefused, type Case } from './cases.js';

const slack = suite<{ server: TestServer; bot: WebhookBot }>('Slack-compatible incoming webhook');

slack.before(async (context) => {
  context.server = await startTestServer();
  context.bot = await webhookBot(await context.server.as('hamlet@zulip.com'));
});
slack.after(async ({ server }) => server.stop());

// Zulip's default topic "(no topic)" is the empty topic (general chat), as Parley stores it.
const noTopic = '';

const cat = 'https://pbs.twimg.com/profile_images/625633822235693056/lNGUneLX_400x400.jpg';

// Where Zulip's tests give the whole message, so does this table: the conversion is the message.
const cases: Case[] = [
  ['text', noTopic, ['Hello, world.']],
  [
    'actions',
    'C1H9RESGL',
    [
      'Danny Torrence left the following *review* for your property:\n\n[Overlook Hotel](https://google.com) \n :star: \n Doors had too many axe holes, guest in room 237 was far too rowdy, whole place felt stuck in the 1920s.\n\n[Haunted hotel image](https://is5-ssl.mzstatic.com/image/thumb/Purple3/v4/d3/72/5c/d3725c8f-c642-5d69-1904-aa36e4297885/source/256x256bb.jpg)\n\n**Average Rating**\n1.0',
    ],
  ],
  [
    'attachment',
    'prometheus-alerts',
    [
      '## [[FIRING:2] InstanceDown for api-server (env="prod", severity="critical")](https://alertmanager.local//#/alerts?receiver=default)\n\n',
      ':chart_with_upwards_trend: **[Graph](http://generator.local/1)**   :notebook: **[Runbook](https://runbook.local/1)**\n\n**Alert details**:\n**Alert:** api-server down - `critical`\n',
      "**Description:** api-server at 1.2.3.4:8081 couldn't be scraped **Details:**\n   • **alertname:** `InstanceDown`",
    ],
  ],
  [
    'complicated',
    noTopic,
    [
      `## Hello from TaskBot

Hey there 👋 I'm TaskBot. I'm here to help you create and manage tasks in Slack.
There are two ways to quickly create tasks:

**1️⃣ Use the \`/task\` command**. Type \`/task\` followed by a short description of your tasks and I'll ask for a due date (if applicable). Try it out by using the \`/task\` command in this channel.

**2️⃣ Use the *Create a Task* action.** If you want to create a task from a message, select \`Create a Task\` in a message's context menu. Try it out by selecting the *Create a Task* action for this message (shown below).

[image1](https://api.slack.com/img/blocks/bkb_template_images/onboardingComplex.jpg)

➕ To start tracking your team's tasks, **add me to a channel** and I'll introduce myself. I'm usually added to a team or project channel. Type \`/invite @TaskBot\` from the channel or pick a channel on the right.

----

[cute cat](${cat})

👀 View all tasks with \`/task list\`

❓Get help at any time with:
- \`/task help\`, or
- type **help** in a DM with me`,
    ],
  ],
  ['attachment_blocks', noTopic, [`This is a section block with an accessory image.\n\n[cute cat](${cat})\n\nThis is a section block with a button.\n\n| | |\n|-|-|\n| one | two |\n| three | four |\n| five |  |`]],
  ['attachment_fields', noTopic, ['Build bla bla succeeded\n\n**Requested by**: Some user\n**Duration**: 00:02:03\n**Build pipeline**: ConsumerAddressModule\n**Title without value**\nValue without title']],
  ['attachment_pieces', noTopic, [`## Test\n\n[](${cat})\n\n<time:2022-06-23T00:48:26+00:00>`]],
];

slack('each fixture posts its blocks, attachments or text in Markdown to the channel it names', async ({ server, bot }) => {
  await assertCases(server, await server.as('hamlet@zulip.com'), bot, 'slack_incoming', 'ZulipSlackIncomingWebhook', cases);
});

slack("a form body's payload field is read as Slack senders post it; icon_emoji leads the text", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const body = readFileSync(new URL('../../../test/fixtures/webhooks/slack_incoming/urlencoded_text.txt', import.meta.url), 'utf8');
  const posted = await postFixture(server, hamlet, bot, 'slack_incoming', { body, contentType: 'application/x-www-form-urlencoded' });
  assert.is(posted.topic, 'devops');
  assert.is(posted.content, ':zap: chris has started deploying project tag v0.0.2rc10 to staging');
});

slack("the answer carries Slack's `ok`, which Slack's senders check", async ({ server, bot }) => {
  const response = await postWebhook(server, 'slack_incoming', bot, { body: JSON.stringify({ text: 'ok?' }), query: { stream: 'Verona' } });
  assert.equal(response.body, { result: 'success', msg: '', ok: true });
});

slack("the URL's topic wins over the payload's channel", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const posted = await postFixture(server, hamlet, bot, 'slack_incoming', { body: JSON.stringify({ channel: '#ops', text: 'deployed' }), query: { topic: 'deploys' } });
  assert.is(posted.topic, 'deploys');
});

slack('mrkdwn becomes Markdown: styles on whole words only, links, mentions', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const table: [string, string][] = [
    // Zulip's own cases (zerver/webhooks/slack_incoming/tests.py).
    ['some *foo* word', 'some **foo** word'],
    ['*foo*', '**foo**'],
    ['*foo* *bar*', '**foo** **bar**'],
    ['*foo*a*bar*', '*foo*a*bar*'],
    ['some _foo_ word', 'some *foo* word'],
    ['it is ~gone~ now', 'it is ~~gone~~ now'],
    ['see <https://example.com/a_b_c|the docs> or <https://example.com>', 'see [the docs](https://example.com/a_b_c) or https://example.com'],
    ['write to <mailto:ops@example.com|ops@example.com>', 'write to mailto:ops@example.com'],
    ['<@U024BE7LH> in <#C024BE7LR|general> and <#C0ABCDEF>, <!here>', '@**Slack user U024BE7LH** in #**general** and #**Slack channel C0ABCDEF**, @**all**'],
    ['from <!subteam^SAZ94GDB8|@oncall>', 'from @oncall'],
  ];
  for (const [text, expected] of table) {
    const posted = await postFixture(server, hamlet, bot, 'slack_incoming', { body: JSON.stringify({ text }) });
    assert.is(posted.content, expected, text);
  }
});

slack("rich_text blocks (Slack's composer): styled text, links, emoji, mentions, lists, quotes, code", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const text = (value: string, style?: Record<string, boolean>) => ({ type: 'text', text: value, ...(style ? { style } : {}) });
  const section = (...elements: object[]) => ({ type: 'rich_text_section', elements });
  const block = {
    type: 'rich_text',
    elements: [
      section(
        text('Deploy ', { bold: true }),
        text('of '),
        { type: 'link', url: 'https://example.com/42', text: 'build 42' },
        text(' by '),
        { type: 'user', user_id: 'U024BE7LH' },
        text(' in '),
        { type: 'channel', channel_id: 'C024BE7LR' },
        text(' '),
        { type: 'emoji', name: 'rocket' },
        text(' was '),
        text('rolled back', { strike: true, italic: true }),
      ),
      { type: 'rich_text_list', style: 'bullet', indent: 0, elements: [section(text('api')), section(text('web'))] },
      { type: 'rich_text_list', style: 'ordered', indent: 1, elements: [section(text('canary', { code: true }))] },
      { type: 'rich_text_quote', elements: [text('Never on a Friday, '), { type: 'broadcast', range: 'here' }] },
      { type: 'rich_text_preformatted', elements: [text('kubectl rollout undo ```deploy```')] },
    ],
  };
  const posted = await postFixture(server, hamlet, bot, 'slack_incoming', { body: JSON.stringify({ blocks: [block] }) });
  assert.is(
    posted.content,
    [
      '**Deploy** of [build 42](https://example.com/42) by @**Slack user U024BE7LH** in #**Slack channel C024BE7LR** :rocket: was ~~*rolled back*~~',
      '- api\n- web',
      '   1. `canary`',
      '```quote\nNever on a Friday, @**all**\n```',
      '````text\nkubectl rollout undo ```deploy```\n````',
    ].join('\n'),
  );
});

slack('a payload with nothing to show succeeds and posts nothing', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const before = (await postedBy(hamlet, bot.id)).at(-1)?.id;
  for (const body of ['{\n    "text": null\n}\n', JSON.stringify({ blocks: [{ type: 'actions', elements: [] }], attachments: [{ color: 'good' }] })]) {
    const response = await postWebhook(server, 'slack_incoming', bot, { body, query: { stream: 'Verona' } });
    assert.equal(response.body, { result: 'success', msg: '', ok: true });
  }
  assert.is((await postedBy(hamlet, bot.id)).at(-1)?.id, before);
});

slack('a block lacking what it needs is a 400', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  await assertRefused(server, hamlet, bot, 'slack_incoming', { body: JSON.stringify({ blocks: [{ type: 'section', text: { type: 'mrkdwn' } }] }) }, 'payload.blocks[0].text.text');
  await assertRefused(server, hamlet, bot, 'slack_incoming', { body: JSON.stringify({ blocks: [{ type: 'image', alt_text: 'a cat' }] }) }, 'payload.blocks[0].image_url');
});

slack.run();
