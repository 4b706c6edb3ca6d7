// PagerDuty (its v3 webhooks): an incident's state changes, under the topic "<title> (#<number>)"
// as Zulip's, with the incident's link, its service, its assignees and who acted. PagerDuty's
// older v1 and v2 payloads are not described here.
import type { EventHandler, Integration } from './integration.js';
import type { Payload } from './payload.js';

const link = (reference: Payload): string => `[${reference.get('summary').str()}](${reference.get('html_url').str()})`;

/** One handler per incident event: `verb` is how the message words it. */
const incident =
  (verb: string): EventHandler =>
  ({ payload }) => {
    const event = payload.get('event');
    const data = event.get('data');
    const topic = `${data.get('title').str()} (#${data.get('number').text()})`;
    const assignees = data.get('assignees').optList().map(link);
    const lines = [
      `Incident [${topic}](${data.get('html_url').str()}) ${verb}${event.get('agent').exists ? ` by ${link(event.get('agent'))}` : ''}.`,
      `* **Service**: ${link(data.get('service'))}`,
      `* **Assigned to**: ${assignees.length > 0 ? assignees.join(', ') : 'nobody'}`,
    ];
    return { topic, content: lines.join('\n') };
  };

export const pagerduty: Integration = {
  name: 'pagerduty',
  displayName: 'PagerDuty',
  category: 'incident management',
  eventType: ({ payload }) => payload.at('event', 'event_type').str(),
  events: {
    'incident.triggered': incident('triggered'),
    'incident.acknowledged': incident('acknowledged'),
    'incident.unacknowledged': incident('unacknowledged'),
    'incident.resolved': incident('resolved'),
    'incident.reassigned': incident('reassigned'),
  },
};
