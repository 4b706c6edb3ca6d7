// Grafana: its unified alerting (8.0 and later: a list of alerts, each firing or resolved, under the
// topic "[<alertname>]") and its legacy alerts (7.x: one rule's state, under the notification's
// title), as Zulip reads them. The event type is the notification's status or state.
import type { EventHandler, Integration, WebhookMessage } from './integration.js';
import type { Payload } from './payload.js';

/** A Grafana timestamp as a time every reader sees in their own zone (nanoseconds dropped). */
const when = (timestamp: string): string => `<time:${timestamp.replace(/\.\d+/, '')}>`;

/** An object's fields as a bullet list, values as text. */
const bullets = (fields: Payload): string[] => fields.entries().map(([key, value]) => `- ${key}: ${typeof value.value === 'object' ? JSON.stringify(value.value) : String(value.value)}`);

function unifiedAlert(alert: Payload): WebhookMessage {
  const firing = alert.get('status').str() === 'firing';
  const labels = alert.get('labels');
  const alertname = labels.get('alertname').optStr();
  const lines = [`${firing ? ':alert: **Firing**' : ':checkbox: **Resolved**'}${alertname ? `: **${alertname}**` : ''}`, '', `Fired at ${when(alert.get('startsAt').str())}.`];
  const ends = alert.get('endsAt').str();
  // Grafana's zero time means "not resolved yet".
  if (!ends.startsWith('0001-')) lines.push(`Resolved at ${when(ends)}.`);
  const sections: [string, string[]][] = [
    ['Labels', labels.exists ? bullets(labels) : []],
    ['Values', alert.get('values').exists ? bullets(alert.get('values')) : alert.get('valueString').optStr() ? [alert.get('valueString').str()] : []],
    ['Annotations', alert.get('annotations').exists ? bullets(alert.get('annotations')) : []],
  ];
  for (const [title, items] of sections) if (items.length > 0) lines.push('', `${title}:`, ...items);
  const links = [['Generator', alert.get('generatorURL').optStr()], ['Silence', alert.get('silenceURL').optStr()], ['Image', alert.get('imageURL').optStr()]].filter(([, url]) => url);
  if (links.length > 0) lines.push('', links.map(([name, url]) => `[${name}](${url})`).join(' · '));
  return { topic: `[${alertname || alert.get('fingerprint').str()}]`, content: lines.join('\n') };
}

const unified: EventHandler = ({ payload }) => payload.get('alerts').list().map(unifiedAlert);

const legacyIcons: Record<string, string> = { alerting: ':alert:', ok: ':squared_ok:' };

const legacy: EventHandler = ({ payload }) => {
  const state = payload.get('state').str();
  const lines = [`${legacyIcons[state] ?? ':info:'} **${state.toUpperCase()}** [${payload.get('ruleName').str()}](${payload.get('ruleUrl').str()})`];
  const message = payload.get('message').optStr();
  if (message) lines.push('', message);
  const matches = payload.get('evalMatches').optList();
  if (matches.length > 0) lines.push('', ...matches.map((match) => `* **${match.get('metric').str()}**: ${match.get('value').exists ? match.get('value').num() : 'no value'}`));
  const image = payload.get('imageUrl').optStr();
  if (image) lines.push('', `[Visualization](${image})`);
  return { topic: payload.get('title').str(), content: lines.join('\n') };
};

export const grafana: Integration = {
  name: 'grafana',
  displayName: 'Grafana',
  category: 'monitoring',
  eventType: ({ payload }) => (payload.get('alerts').exists ? payload.get('status').str() : payload.get('state').str()),
  events: { firing: unified, resolved: unified, alerting: legacy, ok: legacy, pending: legacy, paused: legacy },
};
