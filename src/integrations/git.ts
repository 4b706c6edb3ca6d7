// The messages every git forge posts alike (GitHub, GitLab, Gitea/Forgejo, Bitbucket): pushes with
// their commit lists, branches and tags made or removed, pull requests and issues, comments,
// releases, and the topics they go under (Zulip's shapes: `repo / branch`, `repo / PR #12 title`).
// Each forge's module reads its payload into these plain facts; the wording lives only here.
import type { WebhookInput } from './integration.js';

/** A commit as a push lists it. */
export interface Commit {
  sha: string;
  message: string;
  url?: string | undefined;
  /** Who wrote it, as the forge names them. */
  author: string;
}

/** At most this many commits are listed; the rest are counted (as Zulip does). */
export const COMMITS_LIMIT = 20;
/** At most this many committers are named; the rest are "others". */
const COMMITTERS_LIMIT = 3;

export const shortSha = (sha: string): string => sha.slice(0, 7);

export const link = (text: string, url: string | undefined): string => (url ? `[${text}](${url})` : text);

/** A body of text quoted under the message's first line. */
export const quote = (text: string): string => `\n~~~ quote\n${text}\n~~~`;

export const branchTopic = (repo: string, branch: string): string => `${repo} / ${branch}`;

/** The topic of a pull request, merge request or issue: `repo / PR #12 title`. */
export const itemTopic = (repo: string, kind: string, id: number | string, title: string): string => `${repo} / ${kind} #${id} ${title}`;

/** A ref's branch or tag name (refs/heads/main → main). */
export const refName = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

/** Whether a push to this branch posts under the URL's `branches` (comma-separated; absent: all). */
export function branchWanted(input: WebhookInput, branch: string): boolean {
  const branches = input.param('branches');
  if (branches === undefined) return true;
  return branches.split(',').some((name) => name.trim() === branch);
}

/** Whether a message names its pull request's or issue's title: only when the URL's topic replaces
 * the topic that would have named it. */
export const titleShown = (input: WebhookInput): boolean => input.param('topic') !== undefined;

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** "Commits by A (3), B (2) and others (1)": most commits first, ties by name. */
function committers(commits: readonly Commit[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const commit of commits) counts.set(commit.author, (counts.get(commit.author) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (sorted.length <= COMMITTERS_LIMIT) return sorted;
  const others = sorted.slice(COMMITTERS_LIMIT).reduce((sum, [, count]) => sum + count, 0);
  return [...sorted.slice(0, COMMITTERS_LIMIT), ['others', others]];
}

/** "A", "A and B", "A, B and C". */
export const listing = (names: readonly string[]): string => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** The commit list: each commit's first line, short hash and link; past the limit, a count. */
export function commitList(commits: readonly Commit[], total = commits.length, truncated = false): string {
  const shown = commits.slice(0, COMMITS_LIMIT);
  const rows = shown.map((commit) => `* ${commit.message.split('\n')[0]} (${link(shortSha(commit.sha), commit.url)})`);
  if (total > shown.length) rows.push(`[and ${plural(total - shown.length, 'more commit')}]`);
  else if (truncated) rows.push('[and more commits]');
  return rows.join('\n');
}

export interface Push {
  user: string;
  branch: string;
  /** The comparison of before and after, where the forge gives one. */
  compareUrl?: string | undefined;
  commits: readonly Commit[];
  /** The forge listed only some of the push's commits. */
  truncated?: boolean;
  /** How many commits the push holds, where the forge counts more than it lists. */
  total?: number | undefined;
  deleted?: boolean;
  created?: boolean;
  /** A force push, with the branch's new head. */
  forced?: { head: string; url?: string | undefined } | undefined;
}

/** A push to a branch: its commits, or the branch's creation, deletion or force push. */
export function pushMessage(push: Push): string {
  const branch = `\`${push.branch}\``;
  if (push.deleted) return `${push.user} deleted the branch ${branch}.`;
  if (push.forced && push.commits.length === 0) {
    return `${push.user} ${link('force-pushed', push.compareUrl)} the branch ${branch}; its head is now ${link(shortSha(push.forced.head), push.forced.url)}.`;
  }
  if (push.commits.length === 0) return `${push.user} ${push.created ? 'created' : 'pushed'} the branch ${link(branch, push.compareUrl)}.`;
  const count = push.total ?? push.commits.length;
  const by = committers(push.commits);
  const soleAuthor = by.length === 1 && by[0]![0] === push.user;
  const authors = soleAuthor ? '' : ` Commits by ${listing(by.map(([name, n]) => `${name} (${n})`))}.`;
  const verb = push.forced ? 'force-pushed' : 'pushed';
  return `${push.user} ${link(verb, push.compareUrl)} ${plural(count, 'commit')} to ${push.created ? 'the new branch' : 'branch'} ${branch}.${authors}\n\n${commitList(push.commits, count, push.truncated)}`;
}

/** A tag pushed or removed. */
export const tagMessage = (user: string, tag: string, action: 'pushed' | 'removed', url?: string): string => `${user} ${action} the tag ${link(`\`${tag}\``, url)}.`;

export interface ItemEvent {
  user: string;
  /** What was done: "opened", "merged", "closed without merging", "[commented](url) on", … */
  action: string;
  /** "PR", "MR", "issue", "PR review", … */
  kind: string;
  number?: number | string | undefined;
  url: string;
  /** Shown when the topic does not name it. */
  title?: string | undefined;
  assignee?: string | undefined;
  /** A pull request's branches: from head into base. */
  from?: string | undefined;
  into?: string | undefined;
  /** A description or comment, quoted below. */
  body?: string | null | undefined;
}

/** A pull request, merge request or issue event: who did what to which one, and its text. */
export function itemMessage(event: ItemEvent): string {
  const name = [event.kind, event.number === undefined ? undefined : `#${event.number}`, event.title].filter(Boolean).join(' ');
  let text = `${event.user} ${event.action} ${link(name, event.url)}`;
  if (event.assignee) text += ` (assignee: ${event.assignee})`;
  if (event.from && event.into) text += ` from \`${event.from}\` into \`${event.into}\``;
  const body = event.body?.trim();
  return body ? `${text}:\n${quote(body)}` : `${text}.`;
}

/** A comment's action, linking the comment: "[commented](url) on", "edited a [comment](url) on". */
export const commentAction = (action: string, url: string): string => (action === 'created' ? `[commented](${url}) on` : `${action} a [comment](${url}) on`);

/** A release published, edited, deleted, … */
export function releaseMessage(user: string | undefined, action: string, name: string, tag: string, url: string | undefined): string {
  const release = `the release ${link(name || tag, url)} of tag \`${tag}\``;
  // GitLab does not say who made a release.
  return user === undefined ? `${release[0]!.toUpperCase()}${release.slice(1)} was ${action}.` : `${user} ${action} ${release}.`;
}

/** The service's setup check (GitHub's ping, Gitea's test). */
export const setupMessage = (service: string, user?: string): string => `The ${service} webhook is set up${user ? ` (by ${user})` : ''}.`;

/** A commit's build or check status: "[abc1234](url) is now **success** ([details](url))". */
export const statusMessage = (sha: string, commitUrl: string | undefined, state: string, detailsUrl?: string | undefined, name?: string | undefined): string =>
  `${name ? `${name}: ` : ''}${link(shortSha(sha), commitUrl)} is now **${state}**${detailsUrl ? ` ([details](${detailsUrl}))` : ''}.`;
