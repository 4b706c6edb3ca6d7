// Opsgenie: what happened to an alert (created, closed, acknowledged, a note, an owner, tags, ...),
// under the topic of the Opsgenie integration that sent it (as Zulip's), each with the alert's
// facts the action carries.
import type { EventHandler, Integration } from './integration.js';
import type { Payload } from './payload.js';

const ACTIONS = ['Create', 'Close', 'Acknowledge', 'UnAcknowledge', 'AddNote', 'AddRecipient', 'AddTeam', 'AddTags', 'RemoveTags', 'AssignOwnership', 'TakeOwnership', 'Escalate', 'Delete', 'TestAction'] as const;

/** The facts an alert carries, each as a bullet, in the order a reader wants them. */
function facts(payload: Payload): string[] {
  const alert = payload.get('alert');
  const fields: [string, string | undefined][] = [
    ['Message', alert.get('message').optStr()],
    ['Priority', alert.get('priority').exists ? `P${alert.get('priority').text()}` : undefined],
    ['Note', alert.get('note').optStr()],
    ['Recipient', alert.get('recipient').optStr()],
    ['Team added', alert.get('team').optStr()],
    ['Owner', alert.get('owner').optStr()],
    ['Escalation', payload.get('escalationName').optStr()],
    ['Tags added', alert.get('addedTags').optStr()],
    ['Tags removed', alert.get('removedTags').optStr()],
    ['Tags', alert.get('tags').optList().map((tag) => `\`${tag.str()}\``).join(', ') || undefined],
  ];
  return fields.filter((field): field is [string, string] => field[1] !== undefined).map(([key, value]) => `* **${key}**: ${value}`);
}

const describe: EventHandler = ({ payload }) => {
  const integrationName = payload.get('integrationName').str();
  const link = `https://app.opsgenie.com/alert/V2#/show/${payload.at('alert', 'alertId').str()}`;
  const lines = [`[Opsgenie alert](${link}) from ${integrationName}:`, `* **Action**: ${payload.get('action').str()}`, ...facts(payload)];
  return { topic: integrationName, content: lines.join('\n') };
};

export const opsgenie: Integration = {
  name: 'opsgenie',
  displayName: 'Opsgenie',
  category: 'incident management',
  eventType: ({ payload }) => payload.get('action').str(),
  events: Object.fromEntries(ACTIONS.map((action) => [action, describe])),
};
