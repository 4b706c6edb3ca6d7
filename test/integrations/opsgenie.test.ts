// Opsgenie through HTTP: each alert action under the topic of the Opsgenie integration that sent
// it, with the alert's link and the facts the action carries.
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/webhooks.js';
import { fixtureTable, refusals } from './fixtureTable.js';

const opsgenie = suite<{ server: TestServer }>('Opsgenie webhooks');

opsgenie.before(async (context) => {
  context.server = await startTestServer();
});
opsgenie.after(async ({ server }) => server.stop());

const link = '(https://app.opsgenie.com/alert/V2#/show/052652ac-5d1c-464a-812a-7dd18bbfba8c)';
fixtureTable(opsgenie, 'opsgenie', [
  { fixture: 'create', topic: 'Webhook', facts: ['(https://app.opsgenie.com/alert/V2#/show/ec03dad6-62c8-4c94-b38b-d88f398e900f)', '* **Action**: Create', '* **Message**: another alert', '* **Priority**: P3', '* **Tags**: `vip`'] },
  { fixture: 'close', topic: 'Integration1', facts: [link, '* **Action**: Close', '* **Message**: test alert'] },
  { fixture: 'addnote', topic: 'Integration1', facts: [link, '* **Action**: AddNote', '* **Note**: note to test alert', '* **Tags**: `tag1`, `tag2`'] },
  { fixture: 'assignownership', topic: 'Integration1', facts: [link, '* **Action**: AssignOwnership', '* **Owner**: user2@ifountain.com'] },
]);

const lacking = JSON.parse(fixture('opsgenie', 'close')) as { alert: Record<string, unknown> };
delete lacking.alert.alertId;
refusals(opsgenie, 'opsgenie', { webhookName: 'Opsgenie', unsupported: { body: { ...JSON.parse(fixture('opsgenie', 'close')), action: 'CustomAction' }, eventType: 'CustomAction' }, malformed: lacking });

opsgenie.run();
