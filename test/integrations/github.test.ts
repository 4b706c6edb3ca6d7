// GitHub's webhook: each fixture's topic and facts, the URL's `branches`, `ignore_private_repositories`
// and only_events over Zulip's event type names, and the refusals every forge shares.
import * as assert from 'uvu/assert';
import type { TestServer } from '../helpers/server.js';
import { fixture, postedBy, postWebhook, webhookBot, type WebhookBot } from '../helpers/webhooks.js';
import { forgeSuite, without, type FixtureCase } from './forge.js';

const BAXTER = 'https://github.com/baxterthehacker/public-repo';
const PR_TOPIC = 'public-repo / PR #1 Update the README with new information';
const COMMIT_ROW = `* Update README.md ([0d1a26e](${BAXTER}/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))`;

const cases: FixtureCase[] = [
  { fixture: 'ping', event: 'ping', topic: 'public-repo', facts: ['GitHub webhook', 'TomaszKolek'] },
  {
    fixture: 'push__1_commit',
    event: 'push',
    topic: 'public-repo / changes',
    facts: [`baxterthehacker [pushed](${BAXTER}/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch \`changes\`.`, COMMIT_ROW],
    check: ({ content }) => assert.not.match(content, /Commits by/),
  },
  {
    fixture: 'push__multiple_committers',
    event: 'push',
    topic: 'public-repo / changes',
    facts: ['6 commits', 'Commits by Tomasz (3), Ben (2) and baxterthehacker (1).'],
  },
  {
    fixture: 'push__50_commits',
    event: 'push',
    topic: 'public-repo / changes',
    facts: ['50 commits to branch `changes`', '[and 30 more commits]'],
    check: ({ content }) => assert.is(content.split('\n').filter((line) => line === COMMIT_ROW).length, 20),
  },
  { fixture: 'push__delete_branch', event: 'push', topic: 'public-repo / feature', facts: ['eeshangarg deleted the branch `feature`'] },
  {
    fixture: 'push__force_1_commit',
    event: 'push',
    topic: 'public-repo / changes',
    facts: ['eeshangarg [force-pushed](https://github.com/eeshangarg/public-repo/compare/2e8cf535fb38...a1b2c3d4e5f6)', '`changes`', '[a1b2c3d](https://github.com/eeshangarg/public-repo/commit/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678)'],
  },
  { fixture: 'push__tag', event: 'push', topic: 'public-repo', facts: ['baxterthehacker pushed the tag', `[\`v1.0\`](${BAXTER}/releases/tag/v1.0)`] },
  {
    fixture: 'pull_request__opened',
    event: 'pull_request',
    topic: PR_TOPIC,
    facts: [`baxterthehacker opened [PR #1](${BAXTER}/pull/1)`, 'from `baxterthehacker:changes` into `baxterthehacker:master`', '~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~'],
  },
  { fixture: 'pull_request__merged', event: 'pull_request', topic: PR_TOPIC, facts: [`baxterthehacker merged [PR #1](${BAXTER}/pull/1).`] },
  { fixture: 'pull_request__assigned', event: 'pull_request', topic: PR_TOPIC, facts: ['baxterthehacker assigned zulipbot to', `[PR #1](${BAXTER}/pull/1)`] },
  {
    fixture: 'pull_request__review_requested',
    event: 'pull_request',
    topic: PR_TOPIC,
    facts: ['baxterthehacker requested a review from [showell](https://github.com/showell)', `[PR #1](${BAXTER}/pull/1)`],
  },
  {
    fixture: 'pull_request_review',
    event: 'pull_request_review',
    topic: PR_TOPIC,
    facts: [`[review](${BAXTER}/pull/1#pullrequestreview-2626884)`, '**approved**', 'PR #1', 'Looks great!'],
  },
  {
    fixture: 'pull_request_review_comment',
    event: 'pull_request_review_comment',
    topic: PR_TOPIC,
    facts: [`baxterthehacker [commented](${BAXTER}/pull/1#discussion_r29724692)`, 'PR #1', 'Maybe you should use more emojji on this line.'],
  },
  {
    fixture: 'issues',
    event: 'issues',
    topic: 'public-repo / issue #2 Spelling error in the README file',
    facts: [`baxterthehacker opened [issue #2](${BAXTER}/issues/2)`, "It looks like you accidentally spelled 'commit' with two 't's."],
  },
  {
    fixture: 'issue_comment',
    event: 'issue_comment',
    topic: 'public-repo / issue #2 Spelling error in the README file',
    facts: [`baxterthehacker [commented](${BAXTER}/issues/2#issuecomment-99262140) on [issue #2](${BAXTER}/issues/2)`, "You are totally right! I'll get this fixed right away."],
  },
  {
    fixture: 'issue_comment__pull_request_comment',
    event: 'issue_comment',
    topic: PR_TOPIC,
    facts: [`on [PR #1](${BAXTER}/pull/1)`, 'Looks good to me.'],
  },
  {
    fixture: 'release',
    event: 'release',
    topic: 'public-repo',
    facts: ['baxterthehacker published', `[0.0.1 Initial release](${BAXTER}/releases/tag/0.0.1)`, '`0.0.1`'],
  },
  { fixture: 'star', event: 'star', topic: 'Hello-World', facts: ['[Codertocat](https://github.com/Codertocat) starred [Codertocat/Hello-World](https://github.com/Codertocat/Hello-World).'] },
  {
    fixture: 'workflow_run__completed_failure',
    event: 'workflow_run',
    topic: 'public-repo / CI',
    facts: [`[CI #42](${BAXTER}/actions/runs/1234)`, '`main`', '**failure**', 'baxterthehacker', '[0d1a26e]'],
  },
];

const github = forgeSuite({
  integration: 'github',
  displayName: 'GitHub',
  header: 'X-GitHub-Event',
  cases,
  unsupported: { event: 'sponsorship', body: JSON.stringify({ action: 'created', sender: { login: 'octocat' } }), eventType: 'sponsorship:created' },
  lacking: { event: 'pull_request', body: without('github', 'pull_request__opened', 'pull_request.html_url'), field: 'payload.pull_request.html_url' },
});

github('the title is in the message when the URL names the topic', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const response = await postWebhook(server, 'github', bot, { body: fixture('github', 'pull_request__merged'), query: { stream: 'Verona', topic: 'notifications' }, headers: { 'X-GitHub-Event': 'pull_request' } });
  assert.equal(response.body, { result: 'success', msg: '' });
  const [posted] = await postedBy(hamlet, bot.id);
  assert.is(posted!.topic, 'notifications');
  assert.ok(posted!.content.includes(`[PR #1 Update the README with new information](${BAXTER}/pull/1)`), posted!.content);
});

/** Posts a fixture with the URL's query and answers how many messages the bot has posted so far. */
async function countAfter(server: TestServer, bot: WebhookBot, name: string, event: string, query: Record<string, string>) {
  const response = await postWebhook(server, 'github', bot, { body: fixture('github', name), query: { stream: 'Verona', ...query }, headers: { 'X-GitHub-Event': event } });
  assert.equal(response.body, { result: 'success', msg: '' }, `${name} ${JSON.stringify(query)}`);
  return (await postedBy(await server.as('hamlet@zulip.com'), bot.id, 50)).length;
}

github('`branches` posts pushes to the branches it names only; other events are not filtered by it', async ({ server }) => {
  const bot = await webhookBot(await server.as('hamlet@zulip.com'));
  assert.is(await countAfter(server, bot, 'push__1_commit', 'push', { branches: 'master' }), 0);
  assert.is(await countAfter(server, bot, 'push__1_commit', 'push', { branches: 'master, changes' }), 1);
  assert.is(await countAfter(server, bot, 'pull_request__opened', 'pull_request', { branches: 'master' }), 2);
});

github('only_events and exclude_events name Zulip\'s event types (push_commits, opened_pull_request, …)', async ({ server }) => {
  const bot = await webhookBot(await server.as('hamlet@zulip.com'));
  assert.is(await countAfter(server, bot, 'push__1_commit', 'push', { only_events: '["push_tags"]' }), 0);
  assert.is(await countAfter(server, bot, 'push__1_commit', 'push', { only_events: '["push_commits"]' }), 1);
  assert.is(await countAfter(server, bot, 'pull_request__merged', 'pull_request', { only_events: '["opened_pull_request"]' }), 1);
  assert.is(await countAfter(server, bot, 'pull_request__merged', 'pull_request', { only_events: '["*_pull_request"]' }), 2);
  assert.is(await countAfter(server, bot, 'issues', 'issues', { exclude_events: '["issue*"]' }), 2);
});

github('ignore_private_repositories drops a private repository\'s events; a public one still posts', async ({ server }) => {
  const bot = await webhookBot(await server.as('hamlet@zulip.com'));
  assert.is(await countAfter(server, bot, 'push__1_commit_private_repository', 'push', { ignore_private_repositories: 'true' }), 0);
  assert.is(await countAfter(server, bot, 'push__1_commit', 'push', { ignore_private_repositories: 'true' }), 1);
  assert.is(await countAfter(server, bot, 'push__1_commit_private_repository', 'push', {}), 2);
});

github('actions Zulip leaves unposted (a label on a pull request) succeed and post nothing', async ({ server }) => {
  const bot = await webhookBot(await server.as('hamlet@zulip.com'));
  assert.is(await countAfter(server, bot, 'pull_request__labeled', 'pull_request', {}), 0);
});

github.run();
