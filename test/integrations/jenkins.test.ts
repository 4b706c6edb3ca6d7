// Jenkins (its Notification plugin) through HTTP: each phase of a build posts to the job's topic the
// build (linked where Jenkins knows its URL), the phase, the result once known, and what was built.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, type WebhookBot, webhookBot } from '../helpers/webhooks.js';
import { assertCases, assertRefused, assertUnsupported, type Case } from './cases.js';

const jenkins = suite<{ server: TestServer; bot: WebhookBot }>('Jenkins webhook');

jenkins.before(async (context) => {
  context.server = await startTestServer();
  context.bot = await webhookBot(await context.server.as('hamlet@zulip.com'));
});
jenkins.after(async ({ server }) => server.stop());

const source = '(branch `origin/main`, commit `9f3c2b1d4e5`)';

const cases: Case[] = [
  ['started', 'parley-server', [`Build [#42](https://ci.example.com/job/parley-server/42/) of **parley-server** ${source} started.`]],
  ['completed', 'parley-server', [`Build [#42](https://ci.example.com/job/parley-server/42/) of **parley-server** ${source} completed: **SUCCESS**.`]],
  ['finalized', 'nightly-bench', ['Build #7 of **nightly-bench** finished, post-build steps included: **FAILURE**.']],
];

jenkins('each phase posts to the job\'s topic with the build, its result and its source', async ({ server, bot }) => {
  await assertCases(server, await server.as('hamlet@zulip.com'), bot, 'jenkins', 'ZulipJenkinsWebhook', cases);
});

jenkins('only_events picks phases by their lower-case names (COMPLETED and FINALIZED both come for every build)', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const before = (await postedBy(hamlet, bot.id)).at(-1)?.id;
  const only = { stream: 'Verona', only_events: '["finalized"]' };
  const skipped = await postWebhook(server, 'jenkins', bot, { body: fixture('jenkins', 'completed'), query: only });
  assert.equal(skipped.body, { result: 'success', msg: '' });
  assert.is((await postedBy(hamlet, bot.id)).at(-1)?.id, before);
  const posted = await postFixture(server, hamlet, bot, 'jenkins', { body: fixture('jenkins', 'finalized'), query: only });
  assert.is(posted.topic, 'nightly-bench');
});

jenkins('a queued build is an unsupported event; a completed build without its status is a 400', async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  await assertUnsupported(server, hamlet, bot, 'jenkins', 'Jenkins', 'queued', { body: fixture('jenkins', 'queued') });
  const completed = JSON.parse(fixture('jenkins', 'completed')) as { build: Record<string, unknown> };
  delete completed.build.status;
  await assertRefused(server, hamlet, bot, 'jenkins', { body: JSON.stringify(completed) }, 'payload.build.status');
});

jenkins.run();
