// Alertmanager through HTTP: a group of alerts becomes one message per topic and status, the topic
// and each alert's description taken from the labels the URL names (`name`, `desc`).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { refusals } from './fixtureTable.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, webhookBot } from '../helpers/webhooks.js';

const alertmanager = suite<{ server: TestServer }>('Alertmanager webhooks');

alertmanager.before(async (context) => {
  context.server = await startTestServer();
});
alertmanager.after(async ({ server }) => server.stop());

const graph = 'http://cobalt:9090/graph?g0.expr=avg+by%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15&g0.tab=0';
const labels = { name: 'topic', desc: 'description' };

alertmanager('two firing alerts of one topic are one list, each linked to its graph', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const posted = await postFixture(server, hamlet, bot, 'alertmanager', { body: fixture('alertmanager', 'alert'), query: labels });
  assert.is(posted.topic, 'andromeda');
  assert.is(posted.content, `:alert: **Firing**\n* CPU core temperature is 34.75C ([graph](${graph}))\n* CPU core temperature is 17.625C ([graph](${graph}))`);
});

alertmanager('one resolved alert is one line', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const posted = await postFixture(server, hamlet, bot, 'alertmanager', { body: fixture('alertmanager', 'single_alert'), query: labels });
  assert.is(posted.topic, 'andromeda');
  assert.is(posted.content, `:squared_ok: **Resolved** CPU core temperature is 34.75C ([graph](${graph}))`);
});

alertmanager('without the URL labels: the topic is the instance (unknown here) and each alert its alertname', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const posted = await postFixture(server, hamlet, bot, 'alertmanager', { body: fixture('alertmanager', 'single_alert') });
  assert.is(posted.topic, '(unknown)');
  assert.ok(posted.content.startsWith(':squared_ok: **Resolved** High CPU Temperature ([graph]('), posted.content);
});

alertmanager('firing and resolved alerts of two topics post one message each', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const bot = await webhookBot(hamlet);
  const payload = JSON.parse(fixture('alertmanager', 'alert')) as { alerts: { status: string; annotations: { topic: string } }[] };
  payload.alerts[1]!.status = 'resolved';
  payload.alerts.push({ ...payload.alerts[0]!, annotations: { ...payload.alerts[0]!.annotations, topic: 'cassiopeia' } });
  const response = await postWebhook(server, 'alertmanager', bot, { body: JSON.stringify(payload), query: { stream: 'Verona', ...labels } });
  assert.equal(response.body, { result: 'success', msg: '' });
  const posted = await postedBy(hamlet, bot.id, 3);
  assert.equal(posted.map((message) => [message.topic, message.content.split(' ')[1]]), [['andromeda', '**Firing**'], ['andromeda', '**Resolved**'], ['cassiopeia', '**Firing**']]);
});

const lacking = JSON.parse(fixture('alertmanager', 'single_alert')) as { alerts: Record<string, unknown>[] };
delete lacking.alerts[0]!.generatorURL;
refusals(alertmanager, 'alertmanager', { webhookName: 'Alertmanager', malformed: lacking });

alertmanager.run();
