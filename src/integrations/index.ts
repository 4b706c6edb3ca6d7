// Every incoming-webhook integration, by the name its URL uses (/api/v1/external/<name>). Adding one
// is a module beside this file, its line here, and its fixtures and test.
import type { Integration } from './integration.js';
import { alertmanager } from './alertmanager.js';
import { grafana } from './grafana.js';
import { json } from './json.js';
import { opsgenie } from './opsgenie.js';
import { pagerduty } from './pagerduty.js';
import { uptimerobot } from './uptimerobot.js';

const all: readonly Integration[] = [json, alertmanager, grafana, opsgenie, pagerduty, uptimerobot];

export const integrations: ReadonlyMap<string, Integration> = new Map(all.map((integration) => [integration.name, integration]));
