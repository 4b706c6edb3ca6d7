// Uptime Robot: a monitor went down or came back up. The topic is the monitor's name (as Zulip's),
// so each monitor's history reads as one thread.
import type { Integration, WebhookInput } from './integration.js';

const monitor = ({ payload }: WebhookInput): { topic: string; subject: string; details: string } => ({
  topic: payload.get('monitor_friendly_name').str(),
  subject: `${payload.get('monitor_friendly_name').str()} (${payload.get('monitor_url').str()})`,
  details: payload.get('alert_details').str(),
});

export const uptimerobot: Integration = {
  name: 'uptimerobot',
  displayName: 'UptimeRobot',
  category: 'monitoring',
  // Uptime Robot names the state in words ("Up", "Down"); others (SSL expiry, say) are not described.
  eventType: ({ payload }) => payload.get('alert_type_friendly_name').str().toLowerCase(),
  events: {
    up: (input) => {
      const { topic, subject, details } = monitor(input);
      const duration = input.payload.get('alert_friendly_duration').str();
      return { topic, content: `:check: ${subject} is **up** again (${details}), after being down for ${duration}.` };
    },
    down: (input) => {
      const { topic, subject, details } = monitor(input);
      return { topic, content: `:warning: ${subject} is **down** (${details}).` };
    },
  },
};

