// Bitbucket Cloud's webhook (bitbucket2): each fixture's topic and facts under Zulip's event types,
// a push of several refs as several messages, and the refusals every forge shares.
import * as assert from 'uvu/assert';
import { fixture, postedBy, postWebhook, webhookBot } from '../helpers/webhooks.js';
import { forgeSuite, without, type FixtureCase } from './forge.js';

const REPO = 'https://bitbucket.org/kolaszek/repository-name';
const PR_TOPIC = 'Repository name / PR #1 new commit';
const ISSUE_TOPIC = 'Repository name / issue #1 Bug';

const cases: FixtureCase[] = [
  {
    fixture: 'push',
    event: 'repo:push',
    topic: 'Repository name / master',
    facts: [`Tomasz [pushed](${REPO}/branches/compare/84b96adc644a30fd6465b3d196369d880762afed..a0b1c2d3e4f5) 1 commit to branch \`master\`.`, `* first commit ([84b96ad](${REPO}/commits/84b96adc644a30fd6465b3d196369d880762afed))`],
  },
  { fixture: 'push_commits_multiple_committers', event: 'repo:push', topic: 'Repository name / master', facts: ['3 commits', 'Commits by Tomasz (2) and Ben Smith (1).'] },
  { fixture: 'push_tag', event: 'repo:push', topic: 'Repository name', facts: [`Tomasz pushed the tag [\`a\`](${REPO}/commits/tag/a).`] },
  { fixture: 'push_remove_branch', event: 'repo:push', topic: 'Repository name / master', facts: ['Tomasz deleted the branch `master`.'] },
  {
    fixture: 'pull_request_created_or_updated',
    event: 'pullrequest:created',
    topic: PR_TOPIC,
    facts: [`Tomasz created [PR #1](${REPO}/pull-requests/1)`, '(assignee: Tomasz)', 'from `new-branch` into `master`', '~~~ quote\nDescription\n~~~'],
  },
  { fixture: 'pull_request_created_or_updated', event: 'pullrequest:approved', topic: PR_TOPIC, facts: [`Tomasz approved [PR #1](${REPO}/pull-requests/1).`] },
  { fixture: 'pull_request_fulfilled_or_rejected', event: 'pullrequest:fulfilled', topic: PR_TOPIC, facts: [`Tomasz merged [PR #1](${REPO}/pull-requests/1) from \`new-branch\` into \`master\`.`] },
  { fixture: 'pull_request_fulfilled_or_rejected', event: 'pullrequest:rejected', topic: PR_TOPIC, facts: [`Tomasz declined [PR #1](${REPO}/pull-requests/1).`] },
  {
    fixture: 'pull_request_comment_action',
    event: 'pullrequest:comment_created',
    topic: PR_TOPIC,
    facts: [`Tomasz [commented](${REPO}/pull-requests/3/_/diff#comment-20576503) on [PR #1](${REPO}/pull-requests/1)`, 'Comment1'],
  },
  { fixture: 'issue_created', event: 'issue:created', topic: ISSUE_TOPIC, facts: [`Tomasz created [issue #1](${REPO}/issues/2/bug)`, '(assignee: Tomasz)', 'Suspected bug'] },
  { fixture: 'issue_commented', event: 'issue:comment_created', topic: ISSUE_TOPIC, facts: [`Tomasz [commented](${REPO}/issues/2#comment-28973596) on [issue #1](${REPO}/issues/2/bug)`, 'Thanks!'] },
  {
    fixture: 'commit_status_changed',
    event: 'repo:commit_status_updated',
    topic: 'Repository name',
    facts: [`[9f4f1f3](${REPO}/commits/9f4f1f3d5d2a7c1be0e1e2d1a8f6b7c8d9e0f1a2)`, '**SUCCESSFUL**', '9fec847784abb10b2fa567ee63b85bd238955d0e', `(${REPO}/addon/pipelines/home#!/results/1)`],
  },
];

const bitbucket = forgeSuite({
  integration: 'bitbucket2',
  displayName: 'Bitbucket2',
  header: 'X-Event-Key',
  cases,
  unsupported: { event: 'pullrequest:teleported', body: fixture('bitbucket2', 'pull_request_created_or_updated'), eventType: 'pullrequest:teleported' },
  lacking: { event: 'issue:created', body: without('bitbucket2', 'issue_created', 'issue.links'), field: 'payload.issue.links' },
  branches: { fixture: 'push', event: 'repo:push', naming: 'develop,master', notNaming: 'develop' },
});

bitbucket('a push of two tags posts two messages, one per tag', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const response = await postWebhook(server, 'bitbucket2', bot, { body: fixture('bitbucket2', 'push_more_than_one_tag'), query: { stream: 'Verona' }, headers: { 'X-Event-Key': 'repo:push' } });
  assert.equal(response.body, { result: 'success', msg: '' });
  const posted = await postedBy(hamlet, bot.id, 10);
  assert.equal(posted.map((message) => message.topic), ['Repository name', 'Repository name']);
  assert.ok(posted[0]!.content.includes('`a`') && posted[1]!.content.includes('`b`'), posted.map((message) => message.content).join('\n'));
});

bitbucket.run();
