// Sentry (Zulip's sentry integration): its internal-integration webhooks — an issue created,
// resolved, assigned or ignored; an alert's or an error's event (an exception with the frame it
// was raised in, or a message) — and the legacy plugin's payload. The topic is the issue's or the
// event's title (the legacy payload's project), as Zulip's.
import { entryOf, unsupported, type Integration, type WebhookInput, type WebhookMessage } from './integration.js';
import type { Payload } from './payload.js';

/** Sentry's platform names → the language of a code block. */
const languages: Readonly<Record<string, string>> = { go: 'go', java: 'java', javascript: 'javascript', node: 'javascript', python: 'python' };

/** "2020-04-28T13:56:05.417909Z" as "2020-04-28 13:56:05". */
const when = (timestamp: string): string => timestamp.split('.')[0]!.replace('T', ' ').replace(/Z$/, '');

const lines = (frame: Payload, key: string): string => frame.get(key).optList().map((line) => `${line.str()}\n`).join('');

/** The frame of the file the exception names, as a few lines of code around the line raised. */
function traceback(event: Payload, filename: string, language: string): string | undefined {
  for (const value of event.at('exception', 'values').list()) {
    for (const frame of value.at('stacktrace', 'frames').optList()) {
      if (frame.get('filename').optStr() !== filename) continue;
      const code = `${lines(frame, 'pre_context')}${frame.get('context_line').optStr() ?? ''}  # ← here\n${lines(frame, 'post_context')}`;
      return `\`\`\`${language}\n${code.replace(/\n+$/, '')}\n\`\`\``;
    }
  }
  return undefined;
}

/** An event (an alert's or an error's): an exception with where it was raised, or a message. */
function eventMessage(event: Payload): WebhookMessage {
  // Zulip does not describe the Raven SDKs' events (versions before 7).
  if (Number(event.get('version').text()) < 7) unsupported('Raven SDK');
  const title = event.get('title').str();
  const facts = [`* **Level**: ${event.get('level').str()}`, `* **Time**: ${when(event.get('datetime').str())}`];
  const link = `[${title}](${event.get('web_url').str()})`;
  if (event.get('exception').exists) {
    const filename = event.at('metadata', 'filename').str();
    const code = traceback(event, filename, entryOf(languages, event.get('platform').str()) ?? '');
    return { topic: title, content: [`**New exception**: ${link}`, [...facts, `* **File**: ${filename}`].join('\n'), ...(code ? [code] : [])].join('\n\n') };
  }
  if (!event.get('logentry').exists) unsupported('unknown event type');
  return { topic: title, content: [`**New message event**: ${link}`, facts.join('\n')].join('\n\n') };
}

/** An issue's change: created (with its level and assignee), resolved, assigned or ignored. */
function issueMessage({ payload }: WebhookInput): WebhookMessage {
  const issue = payload.at('data', 'issue');
  const title = issue.get('title').str();
  const assigned = issue.get('assignedTo');
  const assignee = assigned.exists ? `${assigned.get('type').optStr() === 'team' ? 'team ' : ''}${assigned.get('name').str()}` : 'no one';
  const actor = () => payload.at('actor', 'name').str();
  const action = payload.get('action').str();
  switch (action) {
    case 'created':
      return { topic: title, content: [`**New issue created**: ${title}`, [`* **Level**: ${issue.get('level').str()}`, `* **Last seen**: ${when(issue.get('lastSeen').str())}`, `* **Assignee**: ${assignee}`].join('\n')].join('\n\n') };
    case 'resolved':
      return { topic: title, content: `Issue **${title}** was resolved by **${actor()}**.` };
    case 'assigned':
      return { topic: title, content: `Issue **${title}** was assigned to **${assignee}** by **${actor()}**.` };
    case 'ignored':
      return { topic: title, content: `Issue **${title}** was ignored by **${actor()}**.` };
    default:
      return unsupported(`issue:${action}`);
  }
}

export const sentry: Integration = {
  name: 'sentry',
  displayName: 'Sentry',
  category: 'monitoring',
  eventType: ({ payload }) => {
    const data = payload.get('data');
    if (!data.exists) return 'legacy';
    if (data.get('issue').exists) return 'issue';
    if (data.get('event').exists) return 'event_alert';
    if (data.get('error').exists) return 'error';
    return unsupported(data.entries().map(([key]) => key).join(', '));
  },
  events: {
    issue: issueMessage,
    event_alert: ({ payload }) => eventMessage(payload.at('data', 'event')),
    error: ({ payload }) => eventMessage(payload.at('data', 'error')),
    legacy: ({ payload }) => ({
      topic: payload.get('project_name').str(),
      content: `New [issue](${payload.get('url').str()}) (level: ${payload.get('level').str().toUpperCase()}):\n\n\`\`\`quote\n${payload.get('message').str()}\n\`\`\``,
    }),
  },
};
