// PagerDuty (v3 webhooks) through HTTP: each incident event under the incident's title and number.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postWebhook, webhookBot } from '../helpers/webhooks.js';
import { fixtureTable } from './fixtureTable.js';

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

pagerduty('an event type it does not describe is unsupported; an incident without its title is a 400; neither posts', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const annotated = JSON.parse(fixture('pagerduty', 'resolved_v3')) as { event: { event_type: string; data: Record<string, unknown> } };
  annotated.event.event_type = 'incident.annotated';
  const unsupported = await postWebhook(server, 'pagerduty', bot, { body: JSON.stringify(annotated), query: { stream: 'Verona' } });
  assert.is(unsupported.status, 200);
  assert.equal({ ...unsupported.body, msg: undefined }, { result: 'error', msg: undefined, code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'PagerDuty', event_type: 'incident.annotated' });
  const lacking = JSON.parse(fixture('pagerduty', 'triggered_v3')) as { event: { data: Record<string, unknown> } };
  delete lacking.event.data.title;
  const malformed = await postWebhook(server, 'pagerduty', bot, { body: JSON.stringify(lacking), query: { stream: 'Verona' } });
  assert.is(malformed.status, 400);
  assert.equal(await postedBy(hamlet, bot.id), []);
});

pagerduty.run();
