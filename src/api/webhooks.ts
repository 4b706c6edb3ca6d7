// Incoming webhooks (/api/v1/external/<integration>): the integration reads the service's request,
// the URL's filters decide whether its event is posted, and the webhook's bot posts the messages in
// one write (realm command `webhooks.post`).
import type * as schemas from '../../schemas/index.js';
import { errors } from '../errors.js';
import { integrations } from '../integrations/index.js';
import { entryOf, UnsupportedEvent, type Integration, type WebhookInput, type WebhookMessage } from '../integrations/integration.js';
import { passesEventFilters } from '../integrations/eventFilter.js';
import { Payload, PayloadError } from '../integrations/payload.js';
import { parseClientJson } from '../http/json.js';
import type { WebhookRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';

type WebhookParams = Params<typeof schemas.incomingWebhook>;

/** The body as JSON: a JSON document, or a form whose `payload` field holds one (as Slack-style
 * senders post). */
function parseBody(request: WebhookRequest): Payload {
  const text = request.body.toString('utf8');
  const form = (request.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
  const json = form ? (new URLSearchParams(text).get('payload') ?? '') : text;
  try {
    return new Payload(parseClientJson(json));
  } catch {
    throw errors.malformedJsonBody();
  }
}

/** The messages an integration makes of a request: none for an event the URL's filters leave out. */
function read(integration: Integration, input: WebhookInput, wanted: (eventType: string) => boolean): WebhookMessage[] {
  try {
    const eventType = integration.eventType(input);
    const handler = entryOf(integration.events, eventType);
    if (!handler) throw new UnsupportedEvent(eventType);
    if (!wanted(eventType)) return [];
    const made = handler(input);
    return made === null ? [] : Array.isArray(made) ? made : [made];
  } catch (error) {
    if (error instanceof UnsupportedEvent) throw errors.unsupportedWebhookEvent(integration.displayName, error.eventType);
    if (error instanceof PayloadError) throw errors.malformedWebhookPayload(integration.displayName, error.message);
    throw error;
  }
}

export async function receiveWebhook(request: WebhookRequest, params: WebhookParams) {
  const integration = integrations.get(params.integration);
  if (!integration) throw errors.unknownIntegration(params.integration);
  if (integration.eventHeader !== undefined && request.header(integration.eventHeader) === undefined) throw errors.missingEventHeader(integration.eventHeader);
  const named = params as Record<string, unknown>;
  const input: WebhookInput = {
    payload: parseBody(request),
    header: (name) => request.header(name),
    param: (name) => (named[name] === undefined ? undefined : String(named[name])),
  };
  const messages = read(integration, input, (eventType) => passesEventFilters(eventType, params.only_events, params.exclude_events));
  const answer = integration.successAnswer ?? {};
  if (messages.length === 0) return answer;
  const decoded = (value: string | undefined) => (value !== undefined && integration.unquoteUrlParameters ? decodeOnce(value) : value);
  const topic = decoded(params.topic);
  await request.realm.ask('webhooks.post', request.user.userId, {
    channel: decoded(params.stream) ?? null,
    messages: messages.map((message) => ({ topic: topic ?? message.topic, content: message.content })),
    client: `Zulip${integration.displayName.replace(/\W/g, '')}Webhook`,
  });
  return answer;
}

/** A URL parameter decoded once more (one that is not validly encoded is left as it is). */
function decodeOnce(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
