// Gitea (X-Gitea-Event) and Forgejo, its fork, which sends the same payloads (under X-Forgejo-Event,
// as well as Gitea's header): pushes, branches and tags created, pull requests, issues, comments
// and releases. Event types are the header's, as in Zulip (push, create, pull_request, issues,
// issue_comment, release).
import { entryOf, type EventHandler, type Integration, type WebhookInput } from './integration.js';
import type { Payload } from './payload.js';
import { branchTopic, branchWanted, commentAction, itemMessage, itemTopic, link, pushMessage, refName, releaseMessage, tagMessage, titleShown } from './git.js';

/** Gitea names a user by `login`; older versions (and Gogs) by `username`. */
const userName = (user: Payload): string => user.get('login').optStr() ?? user.get('username').str();
const sender = (p: Payload): string => userName(p.get('sender'));
const repo = (p: Payload): string => p.at('repository', 'name').str();

const ISSUE_ACTIONS: Record<string, string> = { synchronized: 'updated', label_updated: 'changed the labels of', milestoned: 'added a milestone to' };

/** A pull request's or issue's event: who did what, with its text when it is opened. */
function itemEvent(input: WebhookInput, field: 'pull_request' | 'issue') {
  const p = input.payload;
  const item = p.get(field);
  const kind = field === 'pull_request' ? 'PR' : 'issue';
  const number = item.get('number').num();
  const raw = p.get('action').str();
  const action = raw === 'closed' && item.get('merged').optBool() ? 'merged' : (entryOf(ISSUE_ACTIONS, raw) ?? raw);
  const opened = raw === 'opened' || raw === 'reopened';
  const assignee = raw === 'assigned' && item.get('assignee').exists ? userName(item.get('assignee')) : undefined;
  return {
    topic: itemTopic(repo(p), kind, number, item.get('title').str()),
    content: itemMessage({
      user: sender(p),
      action,
      kind,
      number,
      url: item.get('html_url').str(),
      title: titleShown(input) ? item.get('title').str() : undefined,
      assignee,
      from: opened && kind === 'PR' ? item.get('head_branch').str() : undefined,
      into: opened && kind === 'PR' ? item.get('base_branch').str() : undefined,
      body: opened ? item.get('body').optStr() : undefined,
    }),
  };
}

const events: Record<string, EventHandler> = {
  push: (input) => {
    const p = input.payload;
    const ref = p.get('ref').str();
    const branch = refName(ref);
    // Tags come as `create` events too; a push of one says nothing more.
    if (ref.startsWith('refs/tags/') || !branchWanted(input, branch)) return null;
    const commits = p.get('commits').list().map((commit) => ({
      sha: commit.get('id').str(),
      message: commit.get('message').str(),
      url: commit.get('url').str(),
      author: commit.at('author', 'username').optStr() || commit.at('author', 'name').str(),
    }));
    return {
      topic: branchTopic(repo(p), branch),
      content: pushMessage({ user: sender(p), branch, compareUrl: p.get('compare_url').optStr(), commits, total: p.get('total_commits').optNum() }),
    };
  },
  create: ({ payload }) => {
    const ref = payload.get('ref').str();
    const url = `${payload.at('repository', 'html_url').str()}/src/${payload.get('ref_type').str()}/${ref}`;
    if (payload.get('ref_type').str() === 'tag') return { topic: repo(payload), content: tagMessage(sender(payload), ref, 'pushed', url) };
    return { topic: branchTopic(repo(payload), ref), content: `${sender(payload)} created the branch ${link(`\`${ref}\``, url)}.` };
  },
  pull_request: (input) => itemEvent(input, 'pull_request'),
  issues: (input) => itemEvent(input, 'issue'),
  issue_comment: (input) => {
    const p = input.payload;
    const issue = p.get('issue');
    const kind = issue.get('pull_request').exists || issue.get('is_pull').optBool() ? 'PR' : 'issue';
    const comment = p.get('comment');
    return {
      topic: itemTopic(repo(p), kind, issue.get('number').num(), issue.get('title').str()),
      content: itemMessage({
        user: sender(p),
        action: commentAction(p.get('action').str(), comment.get('html_url').str()),
        kind,
        number: issue.get('number').num(),
        url: issue.get('html_url').str(),
        title: titleShown(input) ? issue.get('title').str() : undefined,
        body: comment.get('body').str(),
      }),
    };
  },
  release: ({ payload }) => {
    const release = payload.get('release');
    const tag = release.get('tag_name').str();
    const name = release.get('name').optStr() ?? '';
    // Zulip's topic of a Gitea release: `repo / tag name`.
    return { topic: `${repo(payload)} / ${tag} ${name}`.trim(), content: releaseMessage(sender(payload), payload.get('action').str(), name, tag, release.get('html_url').optStr()) };
  },
};

function giteaLike(name: string, displayName: string, eventHeader: string): Integration {
  return { name, displayName, category: 'version control', eventHeader, params: ['branches'], eventType: ({ header }) => header(eventHeader) ?? '', events };
}

export const gitea = giteaLike('gitea', 'Gitea', 'X-Gitea-Event');
export const forgejo = giteaLike('forgejo', 'Forgejo', 'X-Forgejo-Event');
