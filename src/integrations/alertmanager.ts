// Prometheus Alertmanager: one notification carries a group of alerts. As Zulip does, the alerts
// are gathered by a label (the URL's `name`, default `instance`) into topics, and each topic gets
// one message per status (firing, resolved) listing the alerts by another label (`desc`, default
// `alertname`), each linked to the expression's graph.
import type { Integration, WebhookMessage } from './integration.js';
import type { Payload } from './payload.js';

/** A label's value, or else the annotation's of that name. */
const labelled = (alert: Payload, field: string): string | undefined => alert.at('labels', field).optStr() ?? alert.at('annotations', field).optStr();

export const alertmanager: Integration = {
  name: 'alertmanager',
  displayName: 'Alertmanager',
  category: 'monitoring',
  params: ['name', 'desc'],
  eventType: () => 'alert',
  events: {
    alert: ({ payload, param }) => {
      const nameField = param('name') ?? 'instance';
      const descField = param('desc') ?? 'alertname';
      const topics = new Map<string, { firing: string[]; resolved: string[] }>();
      for (const alert of payload.get('alerts').list()) {
        const topic = labelled(alert, nameField) ?? '(unknown)';
        const desc = labelled(alert, descField) ?? `(no ${descField})`;
        // The generator links to the console tab; the graph tab is what a reader wants.
        const graph = alert.get('generatorURL').str().replace('tab=1', 'tab=0');
        const status = alert.get('status').str() === 'firing' ? 'firing' : 'resolved';
        const lists = topics.get(topic) ?? { firing: [], resolved: [] };
        lists[status].push(`${desc} ([graph](${graph}))`);
        topics.set(topic, lists);
      }
      const messages: WebhookMessage[] = [];
      for (const [topic, lists] of topics) {
        for (const [title, items] of [[':alert: **Firing**', lists.firing], [':squared_ok: **Resolved**', lists.resolved]] as const) {
          if (items.length === 0) continue;
          const content = items.length === 1 ? `${title} ${items[0]}` : `${title}\n${items.map((item) => `* ${item}`).join('\n')}`;
          messages.push({ topic, content });
        }
      }
      return messages;
    },
  },
};
