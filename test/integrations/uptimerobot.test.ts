// Uptime Robot through HTTP: each monitor's state change under the monitor's name.
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/webhooks.js';
import { fixtureTable, refusals } from './fixtureTable.js';

const uptimerobot = suite<{ server: TestServer }>('Uptime Robot webhooks');

uptimerobot.before(async (context) => {
  context.server = await startTestServer();
});
uptimerobot.after(async ({ server }) => server.stop());

fixtureTable(uptimerobot, 'uptimerobot', [
  { fixture: 'uptimerobot_monitor_down', topic: 'Web Server', facts: ['Web Server (server1.example.com)', '**down**', 'Host Is Unreachable'] },
  { fixture: 'uptimerobot_monitor_up', topic: 'Mail Server', facts: ['Mail Server (server2.example.com)', '**up**', 'Host Is Reachable', '44 minutes and 37 seconds'] },
]);

const { monitor_friendly_name: _, ...lacking } = JSON.parse(fixture('uptimerobot', 'uptimerobot_monitor_down')) as Record<string, string>;
refusals(uptimerobot, 'uptimerobot', {
  webhookName: 'UptimeRobot',
  unsupported: { body: { ...JSON.parse(fixture('uptimerobot', 'uptimerobot_monitor_up')), alert_type_friendly_name: 'SSL Expiry' }, eventType: 'ssl expiry' },
  malformed: lacking,
});

uptimerobot.run();
