// What every integration's test checks besides its fixtures: an event type it does not describe is
// answered as Zulip answers it (HTTP 200, UNSUPPORTED_WEBHOOK_EVENT_TYPE) and a payload lacking a
// field it needs is a 400; neither posts anything.
import * as assert from 'uvu/assert';
import type { ApiClient } from '../helpers/client.js';
import type { TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, type WebhookBot, type WebhookCall } from '../helpers/webhooks.js';

/** A fixture's name, the topic it posts to, and text the message must hold. */
export type Case = [fixture: string, topic: string, facts: string[]];

/** Posts each case's fixture (none of these services names its event in a header) and checks its topic, its facts,
 * and the client it was posted by (Zulip<name>Webhook). */
export async function assertCases(server: TestServer, reader: ApiClient, bot: WebhookBot, integration: string, client: string, cases: readonly Case[]): Promise<void> {
  for (const [name, topic, facts] of cases) {
    const posted = await postFixture(server, reader, bot, integration, { body: fixture(integration, name) });
    assert.is(posted.topic, topic, name);
    for (const fact of facts) assert.ok(posted.content.includes(fact), `${name}: ${JSON.stringify(fact)}\n${posted.content}`);
    assert.is(posted.client, client);
  }
}

async function newest(reader: ApiClient, bot: WebhookBot): Promise<number> {
  return (await postedBy(reader, bot.id)).at(-1)?.id ?? 0;
}

export async function assertUnsupported(server: TestServer, reader: ApiClient, bot: WebhookBot, integration: string, webhookName: string, eventType: string, call: WebhookCall): Promise<void> {
  const before = await newest(reader, bot);
  const response = await postWebhook(server, integration, bot, { ...call, query: { stream: 'Verona', ...call.query } });
  assert.is(response.status, 200);
  assert.is(response.body.result, 'error');
  assert.is(response.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
  assert.is(response.body.webhook_name, webhookName);
  assert.is(response.body.event_type, eventType);
  assert.is(await newest(reader, bot), before, 'nothing posted');
}

/** A 400 whose message names the missing field. */
export async function assertRefused(server: TestServer, reader: ApiClient, bot: WebhookBot, integration: string, call: WebhookCall, field: string): Promise<void> {
  const before = await newest(reader, bot);
  const response = await postWebhook(server, integration, bot, { ...call, query: { stream: 'Verona', ...call.query } });
  assert.is(response.status, 400, JSON.stringify(response.body));
  assert.is(response.body.result, 'error');
  assert.ok(String(response.body.msg).includes(field), String(response.body.msg));
  assert.is(await newest(reader, bot), before, 'nothing posted');
}
