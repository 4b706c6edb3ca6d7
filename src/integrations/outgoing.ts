// Outgoing-webhook bots (Zulip's zerver/lib/outgoing_webhook.py): a message that mentions such a bot,
// or a direct message to it, is posted to the bot's service URL — in Zulip's interface (JSON) or a
// Slack-compatible one (form fields) — and the service's answer becomes the bot's reply. Pure:
// what is sent and how an answer reads; the HTTP is outgoingHttp.ts, the outbox the realm's.
import { ServiceInterface, type BotService } from '../users/records.js';

/** A delivery waiting in the outbox: written in the message's commit, removed once settled. */
export interface ServiceDeliveryRecord {
  realmId: number;
  id: number;
  botId: number;
  messageId: number;
  trigger: 'mention' | 'direct_message';
  /** UNIX seconds it was queued. */
  queuedAt: number;
  /** Failed tries so far (timeouts and unreachable services are tried again). */
  attempts: number;
  /** When it is tried next (milliseconds on the server's clock). */
  dueAt: number;
}

/** A service that times out or cannot be reached is tried this many times in all (Zulip's
 * MAX_REQUEST_RETRIES, after the first). */
export const MAX_SERVICE_ATTEMPTS = 4;

/** What the request carries of the message and the bot. */
export interface ServiceEvent {
  trigger: ServiceDeliveryRecord['trigger'];
  bot: { email: string; fullName: string; id: number };
  /** The message as the bot would fetch it (raw Markdown), with its rendered HTML. */
  message: Record<string, unknown> & { content: string; type: string; timestamp: number; sender_id: number; sender_full_name: string };
  channel: { id: number; name: string } | null;
  realm: { id: number; host: string };
}

/** One HTTP request to a bot's service. */
export interface ServiceRequest {
  url: string;
  contentType: string;
  body: string;
}

/** The request for an event, or a failure to tell without asking (Slack's interface has no direct
 * messages). */
export function serviceRequest(service: BotService, event: ServiceEvent): ServiceRequest | { failure: string } {
  if (service.interface === ServiceInterface.slack) {
    if (!event.channel) return { failure: "Slack outgoing webhooks don't support direct messages." };
    const fields: [string, string][] = [
      ['token', service.token],
      ['team_id', `T${event.realm.id}`],
      ['team_domain', event.realm.host],
      ['channel_id', `C${event.channel.id}`],
      ['channel_name', event.channel.name],
      ['thread_ts', String(event.message.timestamp)],
      ['timestamp', String(event.message.timestamp)],
      ['user_id', `U${event.message.sender_id}`],
      ['user_name', event.message.sender_full_name],
      ['text', event.message.content],
      ['trigger_word', event.trigger],
      ['service_id', String(event.bot.id)],
    ];
    return { url: service.baseUrl, contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() };
  }
  const body = { data: event.message.content, message: event.message, bot_email: event.bot.email, bot_full_name: event.bot.fullName, token: service.token, trigger: event.trigger };
  return { url: service.baseUrl, contentType: 'application/json', body: JSON.stringify(body) };
}

/** What a service's answer means for the conversation. */
export type ServiceAnswer =
  /** Post this as the bot's reply. */
  | { kind: 'reply'; content: string }
  /** Nothing to post (response_not_required, an empty answer). */
  | { kind: 'silent' }
  /** A failure to tell the conversation and the bot's owner about. */
  | { kind: 'failure'; conversation: string; owner: string };

/** Reads a service's answer (Zulip's process_success_response and the interfaces' process_success). */
export function readAnswer(service: BotService, status: number, text: string): ServiceAnswer {
  if (status < 200 || status > 299) {
    // What the service said, shown to the owner: a message has no NUL bytes, and this is a glimpse.
    const shown = text.replace(/\0/g, '').slice(0, 1000);
    return { kind: 'failure', conversation: `Third party responded with ${status}`, owner: `The webhook got a response with status code *${status}*.${shown === '' ? '' : `\nThe response contains the following payload:\n\`\`\`\n${shown}\n\`\`\``}` };
  }
  let answer: unknown;
  try {
    answer = text === '' ? '' : JSON.parse(text);
  } catch {
    return invalid('Invalid JSON in response');
  }
  // zulip_botserver before 2021 answered a JSON empty string for "nothing to say".
  if (answer === '' || answer === null) return { kind: 'silent' };
  if (typeof answer !== 'object' || Array.isArray(answer)) return invalid('Invalid response format');
  const fields = answer as Record<string, unknown>;
  const content = service.interface === ServiceInterface.slack ? fields.text : fields.response_not_required === true ? undefined : (fields.response_string ?? fields.content);
  if (content === undefined || content === null) return { kind: 'silent' };
  let reply: string;
  try {
    reply = typeof content === 'string' ? content : JSON.stringify(content);
  } catch {
    // Nested deeper than JSON.stringify goes (JSON.parse goes deeper): an answer, not a failure to
    // settle the delivery with (which would send every bot's deliveries of the pass again).
    return invalid('Invalid response format');
  }
  return reply.trim() === '' ? { kind: 'silent' } : { kind: 'reply', content: reply };
}

function invalid(reason: string): ServiceAnswer {
  return { kind: 'failure', conversation: reason, owner: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${reason}` };
}
