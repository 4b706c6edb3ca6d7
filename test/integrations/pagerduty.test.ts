// PagerDuty (v3 webhooks) through HTTP: each incident event under the incident's title and number.
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/webhooks.js';
import { fixtureTable, refusals } from './fixtureTable.js';

const pagerduty = suite<{ server: TestServer }>('PagerDuty webhooks');

pagerduty.before(async (context) => {
  context.server = await startTestServer();
});
pagerduty.after(async ({ server }) => server.stop());

const agent = '[PIG 208](https://pig208.pagerduty.com/users/PJ0LVEB)';
const service = '* **Service**: [pig208](https://pig208.pagerduty.com/services/PA2P440)';
fixtureTable(pagerduty, 'pagerduty', [
  { fixture: 'triggered_v3', topic: 'Test Incident 3 (#9)', facts: [`[Test Incident 3 (#9)](https://pig208.pagerduty.com/incidents/PFQZPSY) triggered by ${agent}`, service, `* **Assigned to**: ${agent}`] },
  { fixture: 'resolved_v3', topic: 'Test Incident (#6)', facts: [`[Test Incident (#6)](https://pig208.pagerduty.com/incidents/PCPZE64) resolved by ${agent}`, service, '* **Assigned to**: nobody'] },
]);

const annotated = JSON.parse(fixture('pagerduty', 'resolved_v3')) as { event: { event_type: string } };
annotated.event.event_type = 'incident.annotated';
const lacking = JSON.parse(fixture('pagerduty', 'triggered_v3')) as { event: { data: Record<string, unknown> } };
delete lacking.event.data.title;
refusals(pagerduty, 'pagerduty', { webhookName: 'PagerDuty', unsupported: { body: annotated, eventType: 'incident.annotated' }, malformed: lacking });

pagerduty.run();
