// GitHub (X-GitHub-Event): pushes, pull requests and their reviews, issues and comments, releases,
// workflow runs and more, under Zulip's event type names (GitHub's event refined by its action:
// push_commits, opened_pull_request, …), so only_events/exclude_events read as in Zulip. The URL's
// `branches` limits pushes to those branches; `ignore_private_repositories` drops every event of a
// private repository.
import { entryOf, type EventHandler, type Integration, type WebhookInput } from './integration.js';
import type { Payload } from './payload.js';
import {
  branchTopic,
  branchWanted,
  commentAction,
  itemMessage,
  itemTopic,
  link,
  pushMessage,
  quote,
  refName,
  releaseMessage,
  setupMessage,
  shortSha,
  statusMessage,
  tagMessage,
  titleShown,
} from './git.js';

const sender = (p: Payload): string => p.at('sender', 'login').str();
const repo = (p: Payload): string => p.at('repository', 'name').str();

const pullRequestTopic = (p: Payload): string => itemTopic(repo(p), 'PR', p.at('pull_request', 'number').num(), p.at('pull_request', 'title').str());
/** Issue events and comments: a comment on a pull request comes as an issue with a pull_request. */
const issueKind = (p: Payload): string => (p.at('issue', 'pull_request').exists ? 'PR' : 'issue');
const issueTopic = (p: Payload): string => itemTopic(repo(p), issueKind(p), p.at('issue', 'number').num(), p.at('issue', 'title').str());

/** The pull request itself, for a message about it. */
function pullRequest(input: WebhookInput, action: string) {
  const pr = input.payload.get('pull_request');
  return {
    user: sender(input.payload),
    action,
    kind: 'PR',
    number: pr.get('number').num(),
    url: pr.get('html_url').str(),
    title: titleShown(input) ? pr.get('title').str() : undefined,
  };
}

function openedOrUpdated(input: WebhookInput) {
  const p = input.payload;
  const pr = p.get('pull_request');
  const action = p.get('action').str();
  const opened = action === 'opened' || action === 'reopened';
  return {
    topic: pullRequestTopic(p),
    content: itemMessage({
      ...pullRequest(input, action === 'synchronize' ? 'updated' : action),
      assignee: pr.at('assignee', 'login').optStr(),
      from: opened ? pr.at('head', 'label').str() : undefined,
      into: opened ? pr.at('base', 'label').str() : undefined,
      body: opened || p.at('changes', 'body').exists ? pr.get('body').optStr() : undefined,
    }),
  };
}

const handlers: Record<string, EventHandler> = {
  ping: ({ payload }) => ({
    topic: payload.get('repository').exists ? repo(payload) : payload.at('organization', 'login').str(),
    content: setupMessage('GitHub', sender(payload)),
  }),

  push_commits: (input) => {
    const p = input.payload;
    const branch = refName(p.get('ref').str());
    if (!branchWanted(input, branch)) return null;
    const commits = p.get('commits').list().map((commit) => ({
      sha: commit.get('id').str(),
      message: commit.get('message').str(),
      url: commit.get('url').str(),
      author: commit.at('author', 'username').optStr() ?? commit.at('author', 'name').str(),
    }));
    const after = p.get('after').str();
    return {
      topic: branchTopic(repo(p), branch),
      content: pushMessage({
        user: sender(p),
        branch,
        compareUrl: p.get('compare').str(),
        commits,
        deleted: p.get('deleted').bool(),
        created: p.get('created').bool(),
        forced: p.get('forced').bool() ? { head: after, url: `${p.at('repository', 'html_url').str()}/commit/${after}` } : undefined,
      }),
    };
  },

  push_tags: ({ payload }) => {
    const created = !payload.get('deleted').bool();
    const tag = refName(payload.get('ref').str());
    const url = created ? `${payload.at('repository', 'html_url').str()}/releases/tag/${tag}` : undefined;
    return { topic: repo(payload), content: tagMessage(sender(payload), tag, created ? 'pushed' : 'removed', url) };
  },

  opened_pull_request: openedOrUpdated,
  updated_pull_request: openedOrUpdated,

  closed_pull_request: (input) => {
    const merged = input.payload.at('pull_request', 'merged').bool();
    return { topic: pullRequestTopic(input.payload), content: itemMessage(pullRequest(input, merged ? 'merged' : 'closed without merging')) };
  },

  assigned_or_unassigned_pull_request: (input) => {
    const p = input.payload;
    const action = p.get('action').str();
    const assignee = p.at('assignee', 'login').str();
    const who = action === 'assigned' ? `assigned ${assignee} to` : `unassigned ${assignee} from`;
    return { topic: pullRequestTopic(p), content: itemMessage(pullRequest(input, who)) };
  },

  pull_request_review_requested: (input) => {
    const p = input.payload;
    const reviewer = p.get('requested_reviewer').exists
      ? link(p.at('requested_reviewer', 'login').str(), p.at('requested_reviewer', 'html_url').str())
      : link(p.at('requested_team', 'name').str(), p.at('requested_team', 'html_url').str());
    return { topic: pullRequestTopic(p), content: itemMessage(pullRequest(input, `requested a review from ${reviewer} on`)) };
  },

  pull_request_ready_for_review: (input) => ({ topic: pullRequestTopic(input.payload), content: itemMessage(pullRequest(input, 'marked ready for review')) }),

  locked_or_unlocked_pull_request: (input) => {
    const p = input.payload;
    const reason = p.at('pull_request', 'active_lock_reason').optStr();
    const action = p.get('action').str() === 'locked' ? `locked${reason ? ` (as ${reason})` : ''}` : 'unlocked';
    return { topic: pullRequestTopic(p), content: itemMessage(pullRequest(input, action)) };
  },

  pull_request_auto_merge: (input) => {
    const enabled = input.payload.get('action').str() === 'auto_merge_enabled';
    return { topic: pullRequestTopic(input.payload), content: itemMessage(pullRequest(input, `${enabled ? 'enabled' : 'disabled'} auto-merge of`)) };
  },

  pull_request_review: (input) => {
    const p = input.payload;
    const review = p.get('review');
    const state = review.get('state').str().toLowerCase().replace(/_/g, ' ');
    return {
      topic: pullRequestTopic(p),
      content: itemMessage({ ...pullRequest(input, `submitted a [review](${review.get('html_url').str()}) (**${state}**) of`), body: review.get('body').optStr() }),
    };
  },

  pull_request_review_comment: (input) => {
    const p = input.payload;
    const action = p.get('action').str();
    const comment = p.get('comment');
    return {
      topic: pullRequestTopic(p),
      content: itemMessage({ ...pullRequest(input, `${commentAction(action, comment.get('html_url').str())} the review of`), body: action === 'deleted' ? undefined : comment.get('body').str() }),
    };
  },

  issues: (input) => {
    const p = input.payload;
    const issue = p.get('issue');
    const action = p.get('action').str();
    const assigned = action === 'assigned' || action === 'unassigned';
    const assignee = assigned ? p.at('assignee', 'login').str() : undefined;
    return {
      topic: issueTopic(p),
      content: itemMessage({
        user: sender(p),
        action: assignee ? (action === 'assigned' ? `assigned ${assignee} to` : `unassigned ${assignee} from`) : action,
        kind: 'issue',
        number: issue.get('number').num(),
        url: issue.get('html_url').str(),
        title: titleShown(input) ? issue.get('title').str() : undefined,
        body: assigned || action === 'closed' ? undefined : issue.get('body').optStr(),
      }),
    };
  },

  issue_labeled_or_unlabeled: (input) => {
    const p = input.payload;
    const label = p.at('label', 'name').str();
    const action = p.get('action').str() === 'labeled' ? `added the label \`${label}\` to` : `removed the label \`${label}\` from`;
    return { topic: issueTopic(p), content: issueLine(input, action) };
  },

  issue_milestoned_or_demilestoned: (input) => {
    const p = input.payload;
    const milestone = link(p.at('milestone', 'title').str(), p.at('milestone', 'html_url').str());
    const action = p.get('action').str() === 'milestoned' ? `added the milestone ${milestone} to` : `removed the milestone ${milestone} from`;
    return { topic: issueTopic(p), content: issueLine(input, action) };
  },

  issue_comment: (input) => {
    const p = input.payload;
    const comment = p.get('comment');
    return { topic: issueTopic(p), content: itemMessage({ ...issueFacts(input, commentAction(p.get('action').str(), comment.get('html_url').str())), body: comment.get('body').str() }) };
  },

  release: ({ payload }) => {
    const release = payload.get('release');
    const tag = release.get('tag_name').str();
    return { topic: repo(payload), content: releaseMessage(sender(payload), payload.get('action').str(), release.get('name').optStr() ?? '', tag, release.get('html_url').str()) };
  },

  workflow_run: ({ payload }) => {
    const run = payload.get('workflow_run');
    if (payload.get('action').str() !== 'completed') return null;
    const name = run.get('name').str();
    const conclusion = run.get('conclusion').str();
    const commit = run.get('head_sha').str();
    return {
      topic: `${repo(payload)} / ${name}`,
      content:
        `Workflow ${link(`${name} #${run.get('run_number').num()}`, run.get('html_url').str())} on branch \`${run.get('head_branch').str()}\` ` +
        `(${run.get('event').str()} by ${run.at('triggering_actor', 'login').optStr() ?? sender(payload)}, ` +
        `commit ${link(shortSha(commit), `${payload.at('repository', 'html_url').str()}/commit/${commit}`)}) finished: **${conclusion}**.`,
    };
  },

  check_run: ({ payload }) => {
    const run = payload.get('check_run');
    if (run.get('status').str() !== 'completed') return null;
    const sha = run.get('head_sha').str();
    const state = `${run.get('conclusion').str()}`;
    return { topic: `${repo(payload)} / checks`, content: statusMessage(sha, `${payload.at('repository', 'html_url').str()}/commit/${sha}`, state, run.get('html_url').str(), run.get('name').str()) };
  },

  status: ({ payload }) => ({
    topic: repo(payload),
    content: statusMessage(payload.get('sha').str(), payload.at('commit', 'html_url').str(), payload.get('state').str(), payload.get('target_url').optStr(), payload.get('context').optStr()),
  }),

  commit_comment: ({ payload }) => {
    const comment = payload.get('comment');
    const url = comment.get('html_url').str();
    const sha = comment.get('commit_id').str();
    return { topic: repo(payload), content: `${sender(payload)} ${commentAction('created', url)} ${link(shortSha(sha), url.split('#')[0])}:\n${quote(comment.get('body').str())}` };
  },

  create: ({ payload }) => ({ topic: repo(payload), content: `${sender(payload)} created the ${payload.get('ref_type').str()} \`${payload.get('ref').str()}\`.` }),
  delete: ({ payload }) => ({ topic: repo(payload), content: `${sender(payload)} deleted the ${payload.get('ref_type').str()} \`${payload.get('ref').str()}\`.` }),
  fork: ({ payload }) => ({ topic: repo(payload), content: `${sender(payload)} forked ${link(payload.at('forkee', 'full_name').str(), payload.at('forkee', 'html_url').str())}.` }),
  star: ({ payload }) => {
    const action = payload.get('action').str() === 'created' ? 'starred' : 'unstarred';
    return { topic: repo(payload), content: `${link(sender(payload), payload.at('sender', 'html_url').str())} ${action} ${link(payload.at('repository', 'full_name').str(), payload.at('repository', 'html_url').str())}.` };
  },
  watch: ({ payload }) => ({ topic: repo(payload), content: `${sender(payload)} starred ${link(payload.at('repository', 'full_name').str(), payload.at('repository', 'html_url').str())}.` }),

  // Events Zulip knows and leaves unposted.
  ignored: () => null,
};

function issueFacts(input: WebhookInput, action: string) {
  const issue = input.payload.get('issue');
  return {
    user: sender(input.payload),
    action,
    kind: issueKind(input.payload),
    number: issue.get('number').num(),
    url: issue.get('html_url').str(),
    title: titleShown(input) ? issue.get('title').str() : undefined,
  };
}

const issueLine = (input: WebhookInput, action: string): string => itemMessage(issueFacts(input, action));

/** Events GitHub sends that Zulip does not post (and does not call unsupported). */
const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'repository_vulnerability_alert']);
const IGNORED_PULL_REQUEST_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'unlabeled', 'review_request_removed', 'milestoned', 'demilestoned', 'enqueued', 'dequeued']);

const PULL_REQUEST_EVENTS: Record<string, string> = {
  opened: 'opened_pull_request',
  reopened: 'opened_pull_request',
  synchronize: 'updated_pull_request',
  edited: 'updated_pull_request',
  assigned: 'assigned_or_unassigned_pull_request',
  unassigned: 'assigned_or_unassigned_pull_request',
  closed: 'closed_pull_request',
  review_requested: 'pull_request_review_requested',
  ready_for_review: 'pull_request_ready_for_review',
  locked: 'locked_or_unlocked_pull_request',
  unlocked: 'locked_or_unlocked_pull_request',
  auto_merge_enabled: 'pull_request_auto_merge',
  auto_merge_disabled: 'pull_request_auto_merge',
};

const ISSUE_EVENTS: Record<string, string> = {
  labeled: 'issue_labeled_or_unlabeled',
  unlabeled: 'issue_labeled_or_unlabeled',
  milestoned: 'issue_milestoned_or_demilestoned',
  demilestoned: 'issue_milestoned_or_demilestoned',
};

/** Zulip's event type of a request: GitHub's event, refined by its action or ref. */
function eventType({ header, payload }: WebhookInput): string {
  const event = header('X-GitHub-Event') ?? '';
  const action = () => payload.get('action').str();
  switch (event) {
    case 'push': {
      const ref = payload.get('ref').str();
      if (ref.startsWith('refs/heads/gh-readonly-queue/')) return 'ignored';
      return ref.startsWith('refs/heads/') ? 'push_commits' : 'push_tags';
    }
    case 'pull_request':
      return entryOf(PULL_REQUEST_EVENTS, action()) ?? (IGNORED_PULL_REQUEST_ACTIONS.has(action()) ? 'ignored' : `pull_request:${action()}`);
    case 'pull_request_review':
      // GitHub follows a review with an "edited" event of no changes: posted once.
      return action() === 'edited' && payload.get('changes').entries().length === 0 ? 'ignored' : event;
    case 'issues':
      return entryOf(ISSUE_EVENTS, action()) ?? event;
    case 'issue_comment':
    case 'pull_request_review_comment':
      // An edit that left the comment's text as it was is not news.
      return action() === 'edited' && payload.at('changes', 'body', 'from').optStr() === payload.at('comment', 'body').str() ? 'ignored' : event;
    default:
      if (IGNORED_EVENTS.has(event)) return 'ignored';
      return event in handlers && event !== 'ignored' ? event : payload.get('action').exists ? `${event}:${action()}` : event;
  }
}

/** Every event of a private repository is dropped when the URL asks so. */
const publicOnly =
  (handler: EventHandler): EventHandler =>
  (input) =>
    input.param('ignore_private_repositories') === 'true' && input.payload.at('repository', 'private').optBool() === true ? null : handler(input);

export const github: Integration = {
  name: 'github',
  displayName: 'GitHub',
  category: 'version control',
  eventHeader: 'X-GitHub-Event',
  params: ['branches', 'ignore_private_repositories'],
  eventType,
  events: Object.fromEntries(Object.entries(handlers).map(([name, handler]) => [name, publicOnly(handler)])),
};
