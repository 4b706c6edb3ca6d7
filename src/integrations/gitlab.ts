// GitLab (X-Gitlab-Event): pushes and tag pushes, merge requests, issues, comments (notes),
// pipelines, jobs and releases. Event types are Zulip's: the header, refined by the action of an
// issue or merge request ("Merge Request Hook merge") or by what a note is on ("Note Hook Issue").
import { entryOf, type EventHandler, type Integration, type WebhookInput } from './integration.js';
import type { Payload } from './payload.js';
import { branchTopic, branchWanted, commentAction, itemMessage, itemTopic, link, listing, pushMessage, quote, refName, releaseMessage, shortSha, tagMessage, titleShown } from './git.js';

const EMPTY_SHA = '0000000000000000000000000000000000000000';

const project = (p: Payload): string => p.at('project', 'name').str();

/** "A, B and C": the names of an issue's or merge request's assignees. */
function assignees(p: Payload): string | undefined {
  const names = p.get('assignees').optList().map((user) => user.get('name').str());
  return names.length === 0 ? undefined : listing(names);
}

/** What an issue or merge request action reads as. */
const ACTIONS: Record<string, string> = {
  open: 'created',
  reopen: 'reopened',
  update: 'updated',
  close: 'closed',
  merge: 'merged',
  approved: 'approved',
  unapproved: 'unapproved',
  approval: 'approved',
  unapproval: 'unapproved',
};

function push(input: WebhookInput) {
  const p = input.payload;
  const branch = refName(p.get('ref').str());
  if (!branchWanted(input, branch)) return null;
  const before = p.get('before').str();
  const after = p.get('after').str();
  const commits = p.get('commits').list().map((commit) => ({
    sha: commit.get('id').str(),
    message: commit.get('message').str(),
    url: commit.get('url').str(),
    author: commit.at('author', 'name').str(),
  }));
  return {
    topic: branchTopic(project(p), branch),
    content: pushMessage({
      user: p.get('user_name').str(),
      branch,
      compareUrl: `${p.at('project', 'web_url').str()}/-/compare/${before}...${after}`,
      commits,
      // GitLab lists at most 20 commits and counts them all.
      total: p.get('total_commits_count').optNum(),
      deleted: after === EMPTY_SHA,
      created: before === EMPTY_SHA,
    }),
  };
}

function tagPush({ payload }: WebhookInput) {
  const tag = refName(payload.get('ref').str());
  const removed = payload.get('after').str() === EMPTY_SHA;
  const url = removed ? undefined : `${payload.at('project', 'web_url').str()}/-/tags/${tag}`;
  return { topic: project(payload), content: tagMessage(payload.get('user_name').str(), tag, removed ? 'removed' : 'pushed', url) };
}

/** An issue's or merge request's event (kind "issue" or "MR"). */
const itemEvent =
  (kind: string): EventHandler =>
  (input) => {
    const p = input.payload;
    const item = p.get('object_attributes');
    const action = item.get('action').str();
    const opened = action === 'open';
    return {
      topic: itemTopic(project(p), kind, item.get('iid').num(), item.get('title').str()),
      content: itemMessage({
        user: p.at('user', 'name').str(),
        action: entryOf(ACTIONS, action) ?? action,
        kind,
        number: item.get('iid').num(),
        url: item.get('url').str(),
        title: titleShown(input) ? item.get('title').str() : undefined,
        assignee: opened ? assignees(p) : undefined,
        from: opened && kind === 'MR' ? item.get('source_branch').str() : undefined,
        into: opened && kind === 'MR' ? item.get('target_branch').str() : undefined,
        body: opened ? item.get('description').optStr() : undefined,
      }),
    };
  };

/** A comment on an issue, merge request or snippet (the field holding it, and its kind). */
const noteOn =
  (field: string, kind: string, id: string): EventHandler =>
  (input) => {
    const p = input.payload;
    const note = p.get('object_attributes');
    const item = p.get(field);
    return {
      topic: itemTopic(project(p), kind, item.get(id).num(), item.get('title').str()),
      content: itemMessage({
        user: p.at('user', 'name').str(),
        action: commentAction('created', note.get('url').str()),
        kind,
        number: item.get(id).num(),
        url: item.get('url').optStr() ?? note.get('url').str().split('#')[0]!,
        title: titleShown(input) ? item.get('title').str() : undefined,
        body: note.get('note').str(),
      }),
    };
  };

function commitNote({ payload }: WebhookInput) {
  const note = payload.get('object_attributes');
  const commit = payload.get('commit');
  return {
    topic: project(payload),
    content: `${payload.at('user', 'name').str()} ${commentAction('created', note.get('url').str())} ${link(shortSha(commit.get('id').str()), commit.get('url').str())}:\n${quote(note.get('note').str())}`,
  };
}

function pipeline({ payload }: WebhookInput) {
  const attributes = payload.get('object_attributes');
  const id = attributes.get('id').num();
  const url = attributes.get('url').optStr() ?? `${payload.at('project', 'web_url').str()}/-/pipelines/${id}`;
  const branch = refName(attributes.get('ref').str());
  const jobs = payload
    .get('builds')
    .optList()
    .map((build) => `* ${build.get('name').str()} (${build.get('stage').str()}): ${build.get('status').str()}`);
  return {
    topic: branchTopic(project(payload), branch),
    content: `${link(`Pipeline #${id}`, url)} on branch \`${branch}\` (commit ${shortSha(attributes.get('sha').str())}) is now **${attributes.get('status').str()}**${jobs.length ? ` with ${jobs.length} job${jobs.length === 1 ? '' : 's'}:\n${jobs.join('\n')}` : '.'}`,
  };
}

function job({ payload }: WebhookInput) {
  const branch = refName(payload.get('ref').str());
  const url = `${payload.at('repository', 'homepage').str()}/-/jobs/${payload.get('build_id').num()}`;
  return {
    topic: branchTopic(payload.at('repository', 'name').str(), branch),
    content: `Job ${link(payload.get('build_name').str(), url)} of stage \`${payload.get('build_stage').str()}\` on branch \`${branch}\` is now **${payload.get('build_status').str()}**.`,
  };
}

function release({ payload }: WebhookInput) {
  const action = payload.get('action').str();
  const done: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted' };
  return { topic: project(payload), content: releaseMessage(undefined, entryOf(done, action) ?? action, payload.get('name').str(), payload.get('tag').str(), payload.get('url').str()) };
}

const events: Record<string, EventHandler> = {
  'Push Hook': push,
  'Tag Push Hook': tagPush,
  'Pipeline Hook': pipeline,
  'Job Hook': job,
  'Build Hook': job,
  'Release Hook': release,
};
for (const hook of ['Issue Hook', 'Confidential Issue Hook']) for (const action of ['open', 'reopen', 'update', 'close']) events[`${hook} ${action}`] = itemEvent('issue');
for (const action of Object.keys(ACTIONS)) events[`Merge Request Hook ${action}`] = itemEvent('MR');
for (const hook of ['Note Hook', 'Confidential Note Hook']) {
  events[`${hook} Issue`] = noteOn('issue', 'issue', 'iid');
  events[`${hook} MergeRequest`] = noteOn('merge_request', 'MR', 'iid');
  events[`${hook} Snippet`] = noteOn('snippet', 'snippet', 'id');
  events[`${hook} Commit`] = commitNote;
}

/** Zulip's event type: issues and merge requests by their action, notes by what they are on. */
function eventType({ header, payload }: WebhookInput): string {
  const event = header('X-Gitlab-Event') ?? '';
  if (['Issue Hook', 'Confidential Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) return `${event} ${payload.at('object_attributes', 'action').str()}`;
  if (event === 'Note Hook' || event === 'Confidential Note Hook') return `${event} ${payload.at('object_attributes', 'noteable_type').str()}`;
  return event;
}

export const gitlab: Integration = {
  name: 'gitlab',
  displayName: 'GitLab',
  category: 'version control',
  eventHeader: 'X-Gitlab-Event',
  params: ['branches'],
  eventType,
  events,
};
