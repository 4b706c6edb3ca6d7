// Every incoming-webhook integration, by the name its URL uses (/api/v1/external/<name>). Adding one
// is a module beside this file, its line here, and its fixtures and test.
import type { Integration } from './integration.js';
import { alertmanager } from './alertmanager.js';
import { bitbucket2 } from './bitbucket2.js';
import { circleci } from './circleci.js';
import { forgejo, gitea } from './gitea.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { grafana } from './grafana.js';
import { jenkins } from './jenkins.js';
import { jira } from './jira.js';
import { json } from './json.js';
import { opsgenie } from './opsgenie.js';
import { pagerduty } from './pagerduty.js';
import { sentry } from './sentry.js';
import { slackIncoming } from './slackIncoming.js';
import { uptimerobot } from './uptimerobot.js';

const all: readonly Integration[] = [json, github, gitlab, gitea, forgejo, bitbucket2, circleci, jenkins, jira, slackIncoming, alertmanager, grafana, opsgenie, pagerduty, sentry, uptimerobot];

export const integrations: ReadonlyMap<string, Integration> = new Map(all.map((integration) => [integration.name, integration]));
