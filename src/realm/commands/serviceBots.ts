// Outgoing-webhook bots in the realm: a message that mentions one (in a channel it can read) or is
// a direct message to one queues a delivery in the message's own commit (serviceTriggers.ts); the
// realm's notifier posts
// it to the bot's service after commit (notifications.due / notifications.settle), and what the
// service answers is posted as the bot's reply in the same conversation, in the settling write —
// so a reply is posted once, and a restart loses no delivery. Failures reach the conversation
// ("Failure! …") and the bot's owner, as Zulip's do.
import { backoff } from '../../clock.js';
import { MAX_SERVICE_ATTEMPTS, readAnswer, serviceRequest, type ServiceDeliveryRecord, type ServiceEvent, type ServiceRequest } from '../../integrations/outgoing.js';
import type { MessageRecord } from '../../messages/records.js';
import { realmHost } from '../../organization/records.js';
import { messageView } from '../../messages/view.js';
import type { UserRecord } from '../../users/records.js';
import { apiEmail } from '../../users/view.js';
import type { CommandContext, ReadContext } from '../context.js';
import { sendIfAccepted } from './messages.js';
import { noticeToBotOwner } from './webhooks.js';
import { isServiceBot, type ServiceBot } from './serviceTriggers.js';

/** Retries wait 5 s, 10 s, 20 s (Zulip retries at once, in its queue worker). */
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** The most requests one pass of the notifier sends. */
const PASS_SIZE = 50;
const REPLY_CLIENT = 'OutgoingWebhookResponse';

/** A delivery ready for its service. */
export interface DueServiceRequest {
  id: number;
  request: ServiceRequest;
}

export interface DueServices {
  requests: DueServiceRequest[];
  /** Deliveries that fail without a request (Slack's interface and a direct message). */
  failures: { id: number; reason: string }[];
  /** Deliveries to drop unsent: the bot or the message is gone. */
  dropped: number[];
  next: number | null;
}

/** What became of a request. */
export type ServiceOutcome = { id: number } & ({ kind: 'answered'; status: number; text: string } | { kind: 'unreachable'; reason: string; retry: boolean });

function eventOf(ctx: ReadContext, bot: UserRecord, message: MessageRecord, trigger: ServiceDeliveryRecord['trigger']): ServiceEvent {
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  // Bot services predate the empty topic: they get its display name, which means it when they reply.
  const view = messageView(ctx.state, message, ctx.fakeEmailDomain, { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: false });
  return {
    trigger,
    bot: { id: bot.id, email: apiEmail(bot, ctx.fakeEmailDomain), fullName: bot.fullName },
    message: { ...view, rendered_content: message.renderedContent },
    channel: channel ? { id: channel.id, name: channel.name } : null,
    realm: { id: ctx.state.realm.id, host: realmHost(ctx.state.realm, ctx.config.externalHost) },
  };
}

/** The deliveries due now (the notifier's read). */
export function dueServices(ctx: ReadContext, nowMs: number): DueServices {
  const due: DueServices = { requests: [], failures: [], dropped: [], next: null };
  for (const row of ctx.store.serviceOutbox.ofRealm(ctx.state.realm.id)) {
    if (row.dueAt > nowMs || due.requests.length >= PASS_SIZE) {
      due.next = Math.min(due.next ?? Infinity, Math.max(row.dueAt, nowMs));
      continue;
    }
    const bot = ctx.state.users.get(row.botId);
    const message = ctx.store.messages.get(row.messageId);
    if (!isServiceBot(bot) || !message || message.realmId !== ctx.state.realm.id) {
      due.dropped.push(row.id);
      continue;
    }
    const request = serviceRequest(bot.service, eventOf(ctx, bot, message, row.trigger));
    if ('failure' in request) due.failures.push({ id: row.id, reason: request.failure });
    else due.requests.push({ id: row.id, request });
  }
  return due;
}

/** Posts the bot's reply in the conversation of the message it answers; a reply the conversation
 * no longer takes (the bot lost its right to post, say) is dropped. */
function reply(ctx: CommandContext, bot: UserRecord, message: MessageRecord, content: string): void {
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  const target = channel
    ? { type: 'stream' as const, to: [channel.id], topic: message.topic }
    : { type: 'private' as const, to: message.participants.filter((id) => id !== bot.id), topic: null };
  sendIfAccepted(ctx, bot, { ...target, content, readBySender: true, client: REPLY_CLIENT });
}

/** A failure: told in the conversation, and to the bot's owner (at most once a minute). */
function fail(ctx: CommandContext, bot: UserRecord, message: MessageRecord, conversation: string, owner: string): void {
  reply(ctx, bot, message, `Failure! ${conversation}`);
  const link = message.channelId === null ? `#narrow/dm/${message.participants.join(',')}/near/${message.id}` : `#narrow/channel/${message.channelId}/topic/${encodeURIComponent(message.topic)}/near/${message.id}`;
  noticeToBotOwner(ctx, bot, `[A message](${link}) to your bot @_**${bot.fullName}|${bot.id}** triggered an outgoing webhook.\n${owner}`);
}

/** Records what became of a pass's deliveries (in the notifier's settling write). */
export function settleServices(ctx: CommandContext, outcomes: readonly ServiceOutcome[], failures: DueServices['failures'], dropped: readonly number[]): void {
  const realmId = ctx.state.realm.id;
  const settle = (id: number, act: (row: ServiceDeliveryRecord, bot: ServiceBot, message: MessageRecord) => void) => {
    const row = ctx.store.serviceOutbox.get(realmId, id);
    if (!row) return;
    ctx.remove('serviceDelivery', row);
    const bot = ctx.state.users.get(row.botId);
    const message = ctx.store.messages.get(row.messageId);
    if (isServiceBot(bot) && message) act(row, bot, message);
  };
  for (const id of dropped) settle(id, () => undefined);
  for (const { id, reason } of failures) settle(id, (_row, bot, message) => fail(ctx, bot, message, reason, reason));
  for (const outcome of outcomes) {
    settle(outcome.id, (row, bot, message) => {
      if (outcome.kind === 'unreachable') {
        if (outcome.retry && row.attempts + 1 < MAX_SERVICE_ATTEMPTS) {
          ctx.save('serviceDelivery', { ...row, attempts: row.attempts + 1, dueAt: ctx.config.clock.now() + backoff(RETRY_FIRST_MS, RETRY_MAX_MS, row.attempts) });
        } else fail(ctx, bot, message, 'Bot is unavailable', outcome.reason);
        return;
      }
      const answer = readAnswer(bot.service, outcome.status, outcome.text);
      if (answer.kind === 'reply') reply(ctx, bot, message, answer.content);
      else if (answer.kind === 'failure') fail(ctx, bot, message, answer.conversation, answer.owner);
    });
  }
}
