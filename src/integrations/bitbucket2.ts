// Bitbucket Cloud (Zulip's `bitbucket2`; X-Event-Key): pushes (one message per branch or tag a push
// changes), pull requests and their comments, issues and comments, commit comments, build statuses
// and forks. Event types are Zulip's: push, fork, commit_comment, change_commit_status,
// issue_created/updated/commented, pull_request_<action>.
import type { EventHandler, Integration, WebhookInput, WebhookMessage } from './integration.js';
import type { Payload } from './payload.js';
import { branchTopic, branchWanted, commentAction, itemMessage, itemTopic, link, pushMessage, quote, shortSha, statusMessage, tagMessage, titleShown } from './git.js';

const person = (user: Payload): string => user.get('display_name').optStr() ?? user.get('nickname').str();
const actor = (p: Payload): string => person(p.get('actor'));
const repo = (p: Payload): string => p.at('repository', 'name').str();
const href = (p: Payload): string => p.at('links', 'html', 'href').str();

/** One change of a push: a branch's commits, its deletion or force push, or a tag. */
function change(input: WebhookInput, changed: Payload): WebhookMessage | null {
  const p = input.payload;
  const ref = changed.get('new').exists ? changed.get('new') : changed.get('old');
  const name = ref.get('name').str();
  if (ref.get('type').str() === 'tag') {
    const pushed = changed.get('new').exists;
    return { topic: repo(p), content: tagMessage(actor(p), name, pushed ? 'pushed' : 'removed', href(ref)) };
  }
  if (!branchWanted(input, name)) return null;
  const commits = changed.get('commits').optList().map((commit) => ({
    sha: commit.get('hash').str(),
    message: commit.get('message').str(),
    url: href(commit),
    // The author's Bitbucket account, or the name of the commit's "Name <email>".
    author: commit.at('author', 'user').exists ? person(commit.at('author', 'user')) : commit.at('author', 'raw').str().replace(/\s*<[^>]*>$/, ''),
  }));
  const deleted = !changed.get('new').exists;
  return {
    topic: branchTopic(repo(p), name),
    content: pushMessage({
      user: actor(p),
      branch: name,
      compareUrl: deleted ? undefined : changed.at('links', 'html', 'href').optStr(),
      commits,
      truncated: changed.get('truncated').optBool() ?? false,
      deleted,
      created: changed.get('created').optBool() ?? false,
      forced: changed.get('forced').optBool() && !deleted ? { head: changed.at('new', 'target', 'hash').str(), url: href(changed.at('new', 'target')) } : undefined,
    }),
  };
}

const push: EventHandler = (input) =>
  input.payload
    .at('push', 'changes')
    .list()
    .map((changed) => change(input, changed))
    .filter((message): message is WebhookMessage => message !== null);

const PULL_REQUEST_ACTIONS: Record<string, string> = {
  created: 'created',
  updated: 'updated',
  approved: 'approved',
  unapproved: 'unapproved',
  fulfilled: 'merged',
  rejected: 'declined',
};

const pullRequestTopic = (p: Payload): string => itemTopic(repo(p), 'PR', p.at('pullrequest', 'id').num(), p.at('pullrequest', 'title').str());

const pullRequestFacts = (input: WebhookInput, action: string) => {
  const pr = input.payload.get('pullrequest');
  return { user: actor(input.payload), action, kind: 'PR', number: pr.get('id').num(), url: href(pr), title: titleShown(input) ? pr.get('title').str() : undefined };
};

/** A pull request's own event: created and updated ones carry its description. */
const pullRequestEvent =
  (action: string): EventHandler =>
  (input) => {
    const pr = input.payload.get('pullrequest');
    const created = action === 'created';
    const described = created || action === 'updated';
    return {
      topic: pullRequestTopic(input.payload),
      content: itemMessage({
        ...pullRequestFacts(input, PULL_REQUEST_ACTIONS[action]!),
        assignee: created ? pr.get('reviewers').optList().map(person)[0] : undefined,
        from: created || action === 'fulfilled' ? pr.at('source', 'branch', 'name').str() : undefined,
        into: created || action === 'fulfilled' ? pr.at('destination', 'branch', 'name').str() : undefined,
        body: described ? pr.get('description').optStr() : undefined,
      }),
    };
  };

const pullRequestComment =
  (action: string): EventHandler =>
  (input) => {
    const comment = input.payload.get('comment');
    return { topic: pullRequestTopic(input.payload), content: itemMessage({ ...pullRequestFacts(input, commentAction(action, href(comment))), body: comment.at('content', 'raw').str() }) };
  };

const issueEvent =
  (action: 'created' | 'updated' | 'commented'): EventHandler =>
  (input) => {
    const p = input.payload;
    const issue = p.get('issue');
    const created = action === 'created';
    return {
      topic: itemTopic(repo(p), 'issue', issue.get('id').num(), issue.get('title').str()),
      content: itemMessage({
        user: actor(p),
        action: action === 'commented' ? commentAction('created', href(p.get('comment'))) : action,
        kind: 'issue',
        number: issue.get('id').num(),
        url: href(issue),
        title: titleShown(input) ? issue.get('title').str() : undefined,
        assignee: created && issue.get('assignee').exists ? person(issue.get('assignee')) : undefined,
        body: created ? issue.at('content', 'raw').optStr() : action === 'commented' ? p.at('comment', 'content', 'raw').str() : undefined,
      }),
    };
  };

const events: Record<string, EventHandler> = {
  push,
  fork: ({ payload }) => ({ topic: repo(payload), content: `${actor(payload)} forked the repository into ${link(payload.at('fork', 'full_name').str(), href(payload.get('fork')))}.` }),
  commit_comment: ({ payload }) => {
    const comment = payload.get('comment');
    const commit = payload.get('commit');
    return { topic: repo(payload), content: `${actor(payload)} ${commentAction('created', href(comment))} ${link(shortSha(commit.get('hash').str()), href(commit))}:\n${quote(comment.at('content', 'raw').str())}` };
  },
  change_commit_status: ({ payload }) => {
    const status = payload.get('commit_status');
    const sha = status.at('links', 'commit', 'href').str().split('/').at(-1)!;
    return { topic: repo(payload), content: statusMessage(sha, `${href(payload.get('repository'))}/commits/${sha}`, status.get('state').str(), status.get('url').str(), status.get('key').str()) };
  },
  issue_created: issueEvent('created'),
  issue_updated: issueEvent('updated'),
  issue_commented: issueEvent('commented'),
  pull_request_comment_created: pullRequestComment('created'),
  pull_request_comment_updated: pullRequestComment('updated'),
  pull_request_comment_deleted: pullRequestComment('deleted'),
};
for (const action of Object.keys(PULL_REQUEST_ACTIONS)) events[`pull_request_${action}`] = pullRequestEvent(action);

/** Bitbucket's event keys, by Zulip's event types. */
const EVENT_KEYS: Record<string, string> = {
  'repo:push': 'push',
  'repo:fork': 'fork',
  'repo:commit_comment_created': 'commit_comment',
  'repo:commit_status_created': 'change_commit_status',
  'repo:commit_status_updated': 'change_commit_status',
  'issue:created': 'issue_created',
  'issue:updated': 'issue_updated',
  'issue:comment_created': 'issue_commented',
};

function eventType({ header }: WebhookInput): string {
  const key = header('X-Event-Key') ?? '';
  const pullRequest = /^pullrequest:(.+)$/.exec(key);
  if (pullRequest) return `pull_request_${pullRequest[1]}` in events ? `pull_request_${pullRequest[1]}` : key;
  return EVENT_KEYS[key] ?? key;
}

export const bitbucket2: Integration = {
  name: 'bitbucket2',
  displayName: 'Bitbucket2',
  category: 'version control',
  eventHeader: 'X-Event-Key',
  params: ['branches'],
  eventType,
  events,
};
