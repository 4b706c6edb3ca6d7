// Grafana through HTTP: unified alerts under "[<alertname>]", legacy alerts under their title.
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/webhooks.js';
import { fixtureTable, refusals } from './fixtureTable.js';

const grafana = suite<{ server: TestServer }>('Grafana webhooks');

grafana.before(async (context) => {
  context.server = await startTestServer();
});
grafana.after(async ({ server }) => server.stop());

const rule = '[Test rule](http://localhost:3000/)';
const image = '(https://grafana.com/assets/img/blog/mixed_styles.png)';
fixtureTable(grafana, 'grafana', [
  { fixture: 'alert', topic: '[Alerting] Test notification', facts: [`:alert: **ALERTING** ${rule}`, 'Someone is testing the alert notification within grafana.', '* **High value**: 100', '* **Higher Value**: 200', image] },
  { fixture: 'alert_ok', topic: '[Ok] Test notification', facts: [`:squared_ok: **OK** ${rule}`, '* **High value**: 0'] },
  {
    fixture: 'alert_new',
    topic: '[TestAlert]',
    facts: [':checkbox: **Resolved**: **TestAlert**', 'Fired at <time:2022-08-31T05:54:04Z>.', 'Resolved at <time:2022-08-31T10:30:00Z>.', 'Labels:\n- alertname: TestAlert\n- instance: Grafana', 'Values:\n- foo: 10', 'Annotations:\n- summary: Notification test', '[Silence](https://zuliptestingwh2.grafana.net/alerting/silence/new?', `[Image]${image}`],
  },
]);

const lacking = JSON.parse(fixture('grafana', 'alert_new')) as { alerts: Record<string, unknown>[] };
delete lacking.alerts[0]!.startsAt;
refusals(grafana, 'grafana', { webhookName: 'Grafana', unsupported: { body: { ...JSON.parse(fixture('grafana', 'alert_ok')), state: 'no_data' }, eventType: 'no_data' }, malformed: lacking });

grafana.run();
