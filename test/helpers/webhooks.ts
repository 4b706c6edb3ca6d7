// Incoming webhooks in tests: a webhook bot, a service's request to its URL (fixtures from
// test/fixtures/webhooks/<integration>/, as Zulip's own tests post them), and what it posted.
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { rawRequest, type ApiClient, type ApiResponse } from './client.js';
import type { TestServer } from './server.js';

const fixtures = new URL('../../../test/fixtures/webhooks/', import.meta.url).pathname;

/** A fixture's text: test/fixtures/webhooks/<integration>/<name>.json. */
export const fixture = (integration: string, name: string): string => readFileSync(`${fixtures}${integration}/${name}.json`, 'utf8');

export interface WebhookBot {
  id: number;
  apiKey: string;
  email: string;
}

let bots = 0;

/** An incoming-webhook bot (type 2) owned by the client's user. */
export async function webhookBot(owner: ApiClient, botType = 2): Promise<WebhookBot> {
  const shortName = `hook${++bots}`;
  const created = await owner.post('/bots', { full_name: `Hook ${bots}`, short_name: shortName, bot_type: botType });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const email = ((await owner.get(`/users/${Number(created.body.user_id)}`)).body.user as { email: string }).email;
  return { id: Number(created.body.user_id), apiKey: String(created.body.api_key), email };
}

export interface WebhookCall {
  /** The URL's parameters besides api_key (stream, topic, only_events, …). */
  query?: Record<string, string>;
  /** The body as the service sends it. */
  body: string;
  headers?: Record<string, string>;
  contentType?: string;
}

/** A service's request to /api/v1/external/<integration> with the bot's key in the URL. */
export function postWebhook(server: Pick<TestServer, 'baseUrl'>, integration: string, bot: Pick<WebhookBot, 'apiKey'> | undefined, call: WebhookCall): Promise<ApiResponse> {
  const query = new URLSearchParams({ ...(bot ? { api_key: bot.apiKey } : {}), ...call.query });
  return rawRequest(server.baseUrl, {
    method: 'POST',
    path: `/api/v1/external/${integration}?${query}`,
    headers: { 'Content-Type': call.contentType ?? 'application/json', ...call.headers },
    body: call.body,
  });
}

export interface Posted {
  id: number;
  topic: string;
  /** The Markdown as posted. */
  content: string;
  type: string;
  client: string;
}

/** The messages a sender posted, newest last, as a reader sees them (raw Markdown). */
export async function postedBy(reader: ApiClient, senderId: number, count = 1): Promise<Posted[]> {
  const response = await reader.get('/messages', { anchor: 'newest', num_before: count, num_after: 0, apply_markdown: false, allow_empty_topic_name: true, narrow: [{ operator: 'sender', operand: senderId }] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return (response.body.messages as { id: number; subject: string; content: string; type: string; client: string }[]).map((message) => ({
    id: message.id,
    topic: message.subject,
    content: message.content,
    type: message.type,
    client: message.client,
  }));
}

/** Posts a fixture to a channel and answers the one message it made (asserting it made one). */
export async function postFixture(server: TestServer, reader: ApiClient, bot: WebhookBot, integration: string, call: WebhookCall): Promise<Posted> {
  const before = (await postedBy(reader, bot.id)).at(-1)?.id ?? 0;
  const response = await postWebhook(server, integration, bot, { ...call, query: { stream: 'Verona', ...call.query } });
  assert.equal([response.status, response.body.result, response.body.msg], [200, 'success', ''], JSON.stringify(response.body));
  const [posted] = await postedBy(reader, bot.id);
  assert.ok(posted && posted.id > before, 'the webhook posted a message');
  return posted!;
}
