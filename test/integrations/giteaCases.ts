// Gitea's fixtures as Gitea and Forgejo post them alike: each one's event, topic and facts.
import type { FixtureCase } from './forge.js';

const TEST_REPO = 'https://try.gitea.io/kostekIV/test';

export const giteaCases: FixtureCase[] = [
  {
    fixture: 'push__5_commits',
    event: 'push',
    topic: 'test / d',
    facts: [
      `kostekIV [pushed](${TEST_REPO}/compare/21138d2ca0ce18f8e037696fdbe1b3f0c211f630...2ec0c971d04723523aa20f2b378f8b419b47d4ec) 5 commits to branch \`d\`.`,
      `* commit ([2ec0c97](${TEST_REPO}/commit/2ec0c971d04723523aa20f2b378f8b419b47d4ec))`,
      `* commit ([0a38cad](${TEST_REPO}/commit/0a38cad3fac3a13bb78b738d13f15ce9cc3343fa))`,
    ],
  },
  { fixture: 'create__branch', event: 'create', topic: 'test / test-branch', facts: [`kostekIV created the branch [\`test-branch\`](${TEST_REPO}/src/branch/test-branch)`] },
  { fixture: 'pull_request__opened', event: 'pull_request', topic: 'test / PR #4 New pr', facts: [`kostekIV opened [PR #4](${TEST_REPO}/pulls/4)`, 'from `test-branch` into `master`'] },
  { fixture: 'pull_request__merged', event: 'pull_request', topic: 'test / PR #4 New pr', facts: [`kostekIV merged [PR #4](${TEST_REPO}/pulls/4).`] },
  { fixture: 'issues__opened', event: 'issues', topic: 'test / issue #3 Test issue', facts: [`kostekIV opened [issue #3](${TEST_REPO}/issues/3)`, '~~~ quote\nTest body\n~~~'] },
  { fixture: 'issues__assigned', event: 'issues', topic: 'test / issue #3 Test issue', facts: [`kostekIV assigned [issue #3](${TEST_REPO}/issues/3) (assignee: kostekIV)`] },
  {
    fixture: 'issue_comment__new',
    event: 'issue_comment',
    topic: 'test / issue #3 Test issue',
    facts: [`kostekIV [commented](${TEST_REPO}/issues/3#issuecomment-24400) on [issue #3](${TEST_REPO}/issues/3)`, 'test comment'],
  },
  { fixture: 'issue_comment__in_pr', event: 'issue_comment', topic: 'test / PR #1 dummy', facts: [`[commented](${TEST_REPO}/pulls/1/files#issuecomment-24399) on [PR #1]`] },
  { fixture: 'release__published', event: 'release', topic: 'test / v1.4 Title', facts: [`kostekIV published the release [Title](${TEST_REPO}/releases/tag/v1.4)`, '`v1.4`'] },
];
