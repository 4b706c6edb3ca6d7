// The integrations as register's `realm_incoming_webhook_bots` describes them (the web app's list
// when someone creates an incoming-webhook bot and generates its URL): each one's name, event types
// for filtering, and URL options.
import webhookSchema from '../../schemas/incoming-webhook.js';
import { integrations } from './index.js';

/** How the URL options integrations read are shown (Zulip's labels) and checked. */
const urlOptionLabels: Record<string, string> = {
  branches: 'Filter by branches',
  ignore_private_repositories: 'Exclude private repositories',
};

function urlOption(key: string) {
  const property = (webhookSchema.properties as Record<string, { type?: unknown }>)[key];
  return { key, label: urlOptionLabels[key] ?? key.replace(/_/g, ' '), validator: property?.type === 'boolean' ? 'check_bool' : 'check_string' };
}

export const incomingWebhookBots = () =>
  [...integrations.values()].map((integration) => ({
    name: integration.name,
    display_name: integration.displayName,
    all_event_types: Object.keys(integration.events).length > 1 ? Object.keys(integration.events) : null,
    config_options: [],
    url_options: (integration.params ?? []).map(urlOption),
  }));
