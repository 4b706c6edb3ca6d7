// Zulip's generic JSON integration: a JSON body of whatever shape, posted as a code block under the topic "JSON",
// for services that have no integration of their own (and for trying a bot's URL out).
import type { Integration } from './integration.js';

export const json: Integration = {
  name: 'json',
  displayName: 'JSON',
  category: 'custom',
  eventType: () => 'json',
  events: {
    json: ({ payload }) => ({ topic: 'JSON', content: `\`\`\`json\n${JSON.stringify(payload.value, null, 2)}\n\`\`\`` }),
  },
};
