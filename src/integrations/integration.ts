// What an incoming-webhook integration is: the service's name in the URL
// (/api/v1/external/<name>), how a request names its event, and how each event it supports becomes
// a topic and a message. Integrations are pure: they read the request and answer text; the
// endpoint (api/webhooks.ts) authenticates, filters events and sends the message through the same
// command as every other message.
import type { Payload } from './payload.js';

/** One request to an integration, as it reads it. */
export interface WebhookInput {
  /** The body, parsed. */
  payload: Payload;
  /** A request header, by its name in any case. */
  header(name: string): string | undefined;
  /** A URL parameter the integration documents (GitHub's `branches`, say). */
  param(name: string): string | undefined;
}

/** What a supported event posts. */
export interface WebhookMessage {
  topic: string;
  content: string;
}

/** How one event type becomes its message: several (a push to many branches), or none (filtered by
 * the integration's own parameters, such as GitHub's `branches`). */
export type EventHandler = (input: WebhookInput) => WebhookMessage | WebhookMessage[] | null;

export interface Integration {
  /** The URL's name: /api/v1/external/<name>. */
  name: string;
  /** As people know the service ("GitHub"); also the client's name, Zulip<displayName>Webhook. */
  displayName: string;
  /** The documentation's grouping: 'version control', 'continuous integration', 'monitoring',
   * 'incident management', 'project management', 'custom'. */
  category: string;
  /** The header that names the event, when the service sends one: a request without it is
   * refused (400 MISSING_HTTP_EVENT_HEADER). */
  eventHeader?: string;
  /** The URL parameters the integration reads besides Zulip's (documented, passed as `param`). */
  params?: readonly string[];
  /** The service encodes the URL's channel and topic twice (Jira): they are decoded once more
   * (Zulip's unquote_url_parameters). */
  unquoteUrlParameters?: true;
  /** Fields the success answer carries besides Zulip's (Slack's senders check `ok`). */
  successAnswer?: Readonly<Record<string, boolean>>;
  /** The event type a request carries, as `only_events` and `exclude_events` name it; a type
   * without a handler answers UNSUPPORTED_WEBHOOK_EVENT_TYPE. */
  eventType(input: WebhookInput): string;
  /** How each supported event type becomes its message. */
  events: Readonly<Record<string, EventHandler>>;
}

/** Thrown by a handler for a variant of an event it does not support (an action it does not
 * describe): answered as an unsupported event type, posting nothing. */
export class UnsupportedEvent extends Error {
  constructor(readonly eventType: string) {
    super(`unsupported event ${eventType}`);
  }
}

export function unsupported(eventType: string): never {
  throw new UnsupportedEvent(eventType);
}

/** A table's own entry for a key from a payload, or undefined: a key such as `constructor` names no
 * entry, whatever Object's prototype has. */
export const entryOf = <V>(table: Readonly<Record<string, V>>, key: string): V | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);
