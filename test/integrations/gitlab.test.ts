// GitLab's webhook: each fixture's topic and facts under Zulip's event types ("Merge Request Hook
// merge", "Note Hook Commit", …), and the refusals every forge shares.
import * as assert from 'uvu/assert';
import { forgeSuite, without, type FixtureCase } from './forge.js';

const PROJECT = 'https://gitlab.com/tomaszkolek0/my-awesome-project';
const SATYAM = 'https://gitlab.com/sbansal1999/testing-zulip-gitlab-integration';

const cases: FixtureCase[] = [
  {
    fixture: 'push_hook',
    event: 'Push Hook',
    topic: 'my-awesome-project / tomek',
    facts: [
      `Tomasz Kolek [pushed](${PROJECT}/-/compare/5fcdd5551fc3085df79bece2c32b1400802ac407...eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9) 2 commits to branch \`tomek\`.`,
      `* b ([66abd2d](${PROJECT}/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))`,
      `* c ([eb6ae1e](${PROJECT}/commit/eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9))`,
    ],
  },
  {
    fixture: 'push_hook__push_commits_more_than_limit',
    event: 'Push Hook',
    topic: 'my-awesome-project / tomek',
    facts: ['50 commits to branch `tomek`', '[and 30 more commits]'],
    check: ({ content }) => assert.is(content.split('\n').filter((line) => line.startsWith('* b (')).length, 20),
  },
  { fixture: 'push_hook__remove_branch', event: 'Push Hook', topic: 'my-awesome-project / tomek', facts: ['Tomasz Kolek deleted the branch `tomek`.'] },
  { fixture: 'tag_push_hook__add_tag', event: 'Tag Push Hook', topic: 'my-awesome-project', facts: ['Tomasz Kolek pushed the tag', `[\`xyz\`](${PROJECT}/-/tags/xyz)`] },
  {
    fixture: 'issue_hook__issue_created_with_assignee',
    event: 'Issue Hook',
    topic: 'my-awesome-project / issue #1 Issue title',
    facts: [`Tomasz Kolek created [issue #1](${PROJECT}/issues/1)`, '(assignee: Tomasz Kolek)', '~~~ quote\nIssue description\n~~~'],
  },
  {
    fixture: 'merge_request_hook__merge_request_created_with_assignee',
    event: 'Merge Request Hook',
    topic: 'my-awesome-project / MR #1 Merge Request title',
    facts: [`Tomasz Kolek created [MR #1](${PROJECT}/merge_requests/1)`, '(assignee: Tomasz Kolek)', 'from `tomek` into `master`', 'Merge Request description'],
  },
  { fixture: 'merge_request_hook__merge_request_merged', event: 'Merge Request Hook', topic: 'my-awesome-project / MR #1 Merge Request title', facts: [`Tomasz Kolek merged [MR #1](${PROJECT}/merge_requests/1).`] },
  {
    fixture: 'note_hook__merge_request_note',
    event: 'Note Hook',
    topic: 'testing-zulip-gitlab-integration / MR #1 add new-feature',
    facts: [`Satyam Bansal [commented](${SATYAM}/-/merge_requests/1#note_1406328457) on [MR #1](${SATYAM}/-/merge_requests/1)`, 'I am not sure if this new feature is even required or not.'],
  },
  {
    fixture: 'note_hook__commit_note',
    event: 'Note Hook',
    topic: 'testing-zulip-gitlab-integration',
    facts: [`Satyam Bansal [commented](${SATYAM}/-/commit/82689ddf00fd7bdadb5c2afb3b94bd555edc9d01#note_1406241063) on [82689dd](${SATYAM}/-/commit/82689ddf00fd7bdadb5c2afb3b94bd555edc9d01)`, 'Wow what a beautiful commit.'],
  },
  {
    fixture: 'pipeline_hook__pipeline_succeeded',
    event: 'Pipeline Hook',
    topic: 'my-awesome-project / master',
    facts: [`[Pipeline #4414206](${PROJECT}/-/pipelines/4414206)`, '**success**', '2 jobs', '* job_name2 (test): success', '* job_name (test): success'],
  },
  { fixture: 'job_hook__build_success', event: 'Job Hook', topic: 'my-awesome-project / master', facts: [`Job [test](${PROJECT}/-/jobs/1234)`, 'stage `test`', '**success**'] },
  { fixture: 'release_hook__create', event: 'Release Hook', topic: 'my-awesome-project', facts: [`[1.0](${PROJECT}/-/releases/v1.0)`, '`v1.0`', 'created'] },
];

const gitlab = forgeSuite({
  integration: 'gitlab',
  displayName: 'GitLab',
  header: 'X-Gitlab-Event',
  cases,
  unsupported: { event: 'Merge Request Hook', body: JSON.stringify({ object_attributes: { action: 'teleported' } }), eventType: 'Merge Request Hook teleported' },
  lacking: { event: 'Push Hook', body: without('gitlab', 'push_hook', 'user_name'), field: 'payload.user_name' },
  branches: { fixture: 'push_hook', event: 'Push Hook', naming: 'master,tomek', notNaming: 'master' },
});

gitlab.run();
