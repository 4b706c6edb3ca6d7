// Uptime Robot through HTTP: each monitor's state change under the monitor's name.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postWebhook, webhookBot } from '../helpers/webhooks.js';
import { fixtureTable } from './fixtureTable.js';

const uptimerobot = suite<{ server: TestServer }>('Uptime Robot webhooks');

uptimerobot.before(async (context) => {
  context.server = await startTestServer();
});
uptimerobot.after(async ({ server }) => server.stop());

fixtureTable(uptimerobot, 'uptimerobot', [
  { fixture: 'uptimerobot_monitor_down', topic: 'Web Server', facts: ['Web Server (server1.example.com)', '**down**', 'Host Is Unreachable'] },
  { fixture: 'uptimerobot_monitor_up', topic: 'Mail Server', facts: ['Mail Server (server2.example.com)', '**up**', 'Host Is Reachable', '44 minutes and 37 seconds'] },
]);

uptimerobot('an alert type it does not describe is unsupported; a payload lacking the monitor is a 400; neither posts', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const ssl = { ...JSON.parse(fixture('uptimerobot', 'uptimerobot_monitor_up')), alert_type_friendly_name: 'SSL Expiry' };
  const unsupported = await postWebhook(server, 'uptimerobot', bot, { body: JSON.stringify(ssl), query: { stream: 'Verona' } });
  assert.is(unsupported.status, 200);
  assert.equal({ ...unsupported.body, msg: undefined }, { result: 'error', msg: undefined, code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: 'UptimeRobot', event_type: 'ssl expiry' });
  const { monitor_friendly_name: _, ...lacking } = JSON.parse(fixture('uptimerobot', 'uptimerobot_monitor_down')) as Record<string, string>;
  const malformed = await postWebhook(server, 'uptimerobot', bot, { body: JSON.stringify(lacking), query: { stream: 'Verona' } });
  assert.is(malformed.status, 400);
  assert.equal(await postedBy(hamlet, bot.id), []);
});

uptimerobot.run();
