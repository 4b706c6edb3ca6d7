// CircleCI's webhook through HTTP: each fixture (Zulip's, test/fixtures/webhooks/circleci/) posts
// to the project's topic the outcome, the pipeline and the commit it ran on; the ping its own topic.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postFixture, type WebhookBot, webhookBot } from '../helpers/webhooks.js';
import { assertCases, assertRefused, assertUnsupported, type Case } from './cases.js';

const circleci = suite<{ server: TestServer; bot: WebhookBot }>('CircleCI webhook');

circleci.before(async (context) => {
  context.server = await startTestServer();
  context.bot = await webhookBot(await context.server.as('hamlet@zulip.com'));
});
circleci.after(async ({ server }) => server.stop());

const github = 'https://github.com/zulip-testing/circleci-webhook-test/commit/a5e30a908224e46626a796d058289475f6d387b5';

const cases: Case[] = [
  ['ping', 'Test event', ['**Testing**', 'test event arrived']],
  [
    'github_workflow_completed',
    'circleci-webhook-test',
    [
      'Workflow [`sample`](https://app.circleci.com/pipelines/github/zulip-testing/circleci-webhook-test/4/workflows/7381218b-d04c-4aa3-b8b8-8c00a9319d1f) of pipeline #4 succeeded.',
      `[\`a5e30a90822: .circleci: Update Webhook URL.\`](${github}) on branch \`main\` by Hari Prashant Bhimaraju.`,
    ],
  ],
  ['github_job_completed', 'circleci-webhook-test', ['Job `build-and-test` of pipeline #4 succeeded.', `(${github})`, 'by Hari Prashant Bhimaraju']],
  [
    'gitlab_job_completed',
    'circleci-webhook-test',
    [
      'Job `build-and-test` of pipeline #3 succeeded.',
      '[`c31f86994c5: app: Enhance message within hello().`](https://gitlab.com/zulip-testing/circleci-webhook-test/-/commit/c31f86994c54672f97b5bd5e544315b7bd40e4c1) on branch `main` by Hari Prashant Bhimaraju.',
    ],
  ],
  [
    'bitbucket_manual_workflow_completed',
    'circleci-webhook-testing',
    ['of pipeline #2 succeeded', 'by hand on the head of `master`, [cab5eacb4cc](https://bitbucket.org/hariprashant1/circleci-webhook-testing/commits/cab5eacb4ccee2710529894425341fa20a48fe6a)'],
  ],
  ['github_tag_workflow_completed', 'circleci-webhook-test', ['of pipeline #20 succeeded', 'by a tag, on [0e6e66c14e6](https://github.com/prah23/circleci-webhook-test/commit/0e6e66c14e61fbcd95db716b0f30d67dbcce7814)']],
];

circleci('each fixture posts to its topic with the facts of the event', async ({ server, bot }) => {
  await assertCases(server, await server.as('hamlet@zulip.com'), bot, 'circleci', 'ZulipCircleCIWebhook', cases);
});

circleci("a failed job says so; another type is refused as unsupported; a payload without a job's status is a 400", async ({ server, bot }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const failed = JSON.parse(fixture('circleci', 'github_job_completed')) as { job: { status: string } };
  failed.job.status = 'failed';
  const posted = await postFixture(server, hamlet, bot, 'circleci', { body: JSON.stringify(failed) });
  assert.ok(posted.content.startsWith('Job `build-and-test` of pipeline #4 failed.'), posted.content);

  await assertUnsupported(server, hamlet, bot, 'circleci', 'CircleCI', 'job-started', { body: JSON.stringify({ ...failed, type: 'job-started' }) });
  const { job: _job, ...withoutJob } = failed as { job: unknown };
  await assertRefused(server, hamlet, bot, 'circleci', { body: JSON.stringify(withoutJob) }, 'payload.job.name');
});

circleci.run();
