// Jira's webhooks (Zulip's jira integration). Jira names the event in the body (`webhookEvent`), not
// in a header; old Jira servers send a transition without naming it, which is an issue update. Every
// message goes to the topic `KEY-123: summary`. An update bundles many things (a comment, a
// transition, field changes in `changelog`), told apart as Zulip does by `issue_event_type_name`.
// Events Zulip accepts but does not describe (worklogs, sprints, links…) post nothing.
import { type EventHandler, type Integration, type WebhookMessage } from './integration.js';
import { PayloadError, type Payload } from './payload.js';

/** Zulip's longest message. */
const MAX_MARKUP_LENGTH = 10_000;

/** Jira's wiki markup, as far as it reads in Zulip's Markdown (what Zulip converts, no more). A
 * comment is shown inside a ```quote fence, so blocks inside it are fenced with ~~~. */
function fromJiraMarkup(text: string): string {
  // No longer than a message may be (the rest would be cut anyway), so the conversions below stay
  // fast on any text; each of their runs stops where the next opener starts.
  return text
    .slice(0, MAX_MARKUP_LENGTH)
    .replace(/\*([^*]+)\*/g, '**$1**')
    .replace(/\{\{([^{}\n]+)\}\}/g, '`$1`')
    .replace(/^bq\. (.*)$/gm, '> $1')
    .replace(/\{quote\}([\s\S]*?)\{quote\}/g, '~~~ quote\n$1\n~~~')
    .replace(/\{(?:noformat|code)[^}\n]*\}([\s\S]*?)\{(?:noformat|code)\}/g, '~~~\n$1\n~~~')
    .replace(/\[~([^[\]]+)\]/g, '**$1**')
    .replace(/\[([^|~[\]]+)\|([^\]]*)\]/g, '[$1]($2)')
    .replace(/\[([^|~[\]()]+)\](?!\()/g, '[$1]($1)')
    .replace(/\\!/g, '!');
}

const quoted = (text: string): string => `\`\`\`quote\n${text}\n\`\`\``;

/** The issue's key; a comment event from an old Jira without the issue has only the issue's ID,
 * in the comment's REST URL (…/issue/<id>/comment/<id>). */
function issueKey(payload: Payload): string {
  if (payload.get('issue').exists || !payload.get('comment').exists) return payload.at('issue', 'key').str();
  const id = payload.at('comment', 'self').str().split('/').at(-3);
  if (!id) throw new PayloadError('payload.comment.self', "a comment's URL");
  return id;
}

const summary = (payload: Payload): string => (payload.get('issue').exists ? payload.at('issue', 'fields', 'summary').str() : '(issue title unknown: this Jira does not send it)');

const topic = (payload: Payload): string => `${issueKey(payload)}: ${summary(payload)}`;

/** `KEY-123: summary`, linked to the issue's page: Jira sends only its REST URL, whose base the
 * browse page shares. */
function issueLink(payload: Payload): string {
  const text = topic(payload);
  const base = /^(.*)\/rest\/api\/.*/.exec(payload.at('issue', 'self').optStr() ?? '')?.[1];
  return base ? `[${text}](${base}/browse/${issueKey(payload)})` : text;
}

const actor = (payload: Payload): string => payload.at('user', 'displayName').str();

/** Who the issue is assigned to (Zulip looks the e-mail address up among its users; a webhook
 * integration here reads only the request, so it shows Jira's name for them). */
function assignee(payload: Payload): string | undefined {
  const person = payload.at('issue', 'fields', 'assignee');
  return person.exists ? (person.get('displayName').optStr() ?? person.get('emailAddress').str()) : undefined;
}

const message = (payload: Payload, content: string): WebhookMessage => ({ topic: topic(payload), content });

/** What an update did, by Jira's name for it (or, where an old Jira sends none, by its parts). */
function updateKind(payload: Payload): string {
  const named = payload.get('issue_event_type_name').optStr();
  if (named) return named;
  if (payload.get('comment').exists && payload.get('comment').value !== '') return 'issue_commented';
  if (payload.get('transition').exists) return 'issue_transited';
  return '';
}

const commentVerbs: Readonly<Record<string, string>> = {
  issue_commented: 'commented on',
  issue_comment_edited: 'edited a comment on',
  issue_comment_deleted: 'deleted a comment on',
};

/** "* Changed priority from **Critical** to **Major**" */
function change(field: string, from: string | undefined, to: string | undefined): string {
  return `* Changed ${field}${from ? ` from **${from}**` : ''}${to ? ` to **${to}**` : ''}`;
}

const issueUpdated: EventHandler = ({ payload }) => {
  const kind = updateKind(payload);
  const who = assignee(payload);
  const assigned = who ? ` (assigned to **${who}**)` : '';
  const verb = commentVerbs[kind];
  if (verb !== undefined) {
    const body = payload.at('comment', 'body').optStr();
    const author = payload.at('comment', 'author', 'displayName').optStr() ?? actor(payload);
    return message(payload, `${author} ${verb} ${issueLink(payload)}${assigned}${body ? `:\n\n${quoted(fromJiraMarkup(body))}` : '.'}`);
  }
  const changes = payload.get('changelog').exists
    ? payload
        .at('changelog', 'items')
        .list()
        .map((item) => {
          const field = item.get('field').str();
          // The new assignee reads as the issue names them now.
          const to = field === 'assignee' && who ? who : item.get('toString').optStr();
          return change(field, item.get('fromString').optStr(), to);
        })
    : kind === 'issue_transited'
      ? [change('status', payload.at('transition', 'from_status').str(), payload.at('transition', 'to_status').str())]
      : [];
  return message(payload, `${actor(payload)} updated ${issueLink(payload)}${assigned}${changes.length > 0 ? `:\n\n${changes.join('\n')}` : '.'}`);
};

/** comment_created, comment_updated, comment_deleted: the comment and the issue it is on. */
const commentEvent =
  (did: string, strike: boolean): EventHandler =>
  ({ payload }) => {
    const comment = payload.get('comment');
    const body = fromJiraMarkup(comment.get('body').str());
    const issue = payload.get('issue').exists ? issueLink(payload) : topic(payload);
    return message(payload, `${comment.at('author', 'displayName').str()} ${did} ${issue}:\n\n${quoted(strike ? `~~${body}~~` : body)}`);
  };

const ignored: EventHandler = () => null;

export const jira: Integration = {
  name: 'jira',
  displayName: 'Jira',
  category: 'project management',
  // Jira sends the URL's parameters encoded twice (%2520 for a space).
  unquoteUrlParameters: true,
  eventType: ({ payload }) => {
    const named = payload.get('webhookEvent');
    if (!named.exists && payload.get('transition').exists) return 'jira:issue_updated';
    return named.str();
  },
  events: {
    'jira:issue_created': ({ payload }) =>
      message(
        payload,
        `${actor(payload)} created ${issueLink(payload)}:\n\n* **Priority**: ${payload.at('issue', 'fields', 'priority', 'name').optStr() ?? 'none'}\n* **Assignee**: ${assignee(payload) ?? 'no one'}`,
      ),
    'jira:issue_deleted': ({ payload }) => message(payload, `${actor(payload)} deleted ${issueLink(payload)}.`),
    'jira:issue_updated': issueUpdated,
    comment_created: commentEvent('commented on', false),
    comment_updated: commentEvent('edited their comment on', false),
    comment_deleted: commentEvent('deleted their comment on', true),
    attachment_created: ignored,
    issuelink_created: ignored,
    issuelink_deleted: ignored,
    'jira:version_released': ignored,
    'jira:worklog_updated': ignored,
    sprint_closed: ignored,
    sprint_started: ignored,
    worklog_created: ignored,
    worklog_updated: ignored,
  },
};
