// Opsgenie through HTTP: each alert action under the topic of the Opsgenie integration that sent
// it, with the alert's link and the facts the action carries.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postWebhook, webhookBot } from '../helpers/webhooks.js';
import { fixtureTable } from './fixtureTable.js';

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

opsgenie('an action it does not describe is unsupported; an alert without its ID is a 400; neither posts', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const custom = { ...JSON.parse(fixture('opsgenie', 'close')), action: 'CustomAction' };
  const unsupported = await postWebhook(server, 'opsgenie', bot, { body: JSON.stringify(custom), query: { stream: 'Verona' } });
  assert.is(unsupported.status, 200);
  assert.equal({ ...unsupported.body, msg: undefined }, { result: 'error', msg: undefined, code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'Opsgenie', event_type: 'CustomAction' });
  const lacking = JSON.parse(fixture('opsgenie', 'close')) as { alert: Record<string, unknown> };
  delete lacking.alert.alertId;
  const malformed = await postWebhook(server, 'opsgenie', bot, { body: JSON.stringify(lacking), query: { stream: 'Verona' } });
  assert.is(malformed.status, 400);
  assert.equal(await postedBy(hamlet, bot.id), []);
});

opsgenie.run();
