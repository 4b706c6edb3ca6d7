// Incoming webhooks' messages: what an integration made of a request, posted by the webhook's bot
// through the same send as every message — to the URL's channel and topic, or, with no channel, to
// the bot's owner. A channel that does not exist is not the service's fault: the request succeeds
// and the bot's owner is told (Zulip's check_send_webhook_message and send_pm_if_empty_stream).
import { errors } from '../../errors.js';
import type { UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { sendIfAccepted, sendMessage } from './messages.js';

export interface WebhookPost {
  /** The URL's `stream`: a channel's name or ID; null for direct messages to the bot's owner. */
  channel: string | null;
  /** What one request posts, in order (the topic applies to channel messages). */
  messages: { topic: string; content: string }[];
  client: string;
}

/** Owners hear of their bots' undeliverable messages at most this often (Zulip's
 * BOT_OWNER_STREAM_ALERT_WAITPERIOD). */
const OWNER_NOTICE_SECONDS = 60;

/** A direct message from the notification bot to a bot's owner about the bot; none while the
 * owner was told less than a minute ago. */
export function noticeToBotOwner(ctx: CommandContext, bot: UserRecord, content: string): void {
  const owner = bot.botOwnerId === null ? undefined : ctx.state.users.get(bot.botOwnerId);
  const notifier = ctx.state.realm.notificationBotId === null ? undefined : ctx.state.users.get(ctx.state.realm.notificationBotId);
  if (!owner?.isActive || !notifier) return;
  if (bot.ownerNoticeAt !== undefined && ctx.now - bot.ownerNoticeAt < OWNER_NOTICE_SECONDS) return;
  ctx.save('user', { ...bot, ownerNoticeAt: ctx.now });
  sendIfAccepted(ctx, notifier, { type: 'private', to: [owner.id], topic: null, content, readBySender: true, client: 'Internal' });
}

export const webhookCommands = {
  /** Answers the IDs of the messages posted (none when the channel does not exist). */
  'webhooks.post': writeCommand((ctx, input: WebhookPost): number[] => {
    const bot = ctx.user;
    const send = (to: number, type: 'stream' | 'private', message: WebhookPost['messages'][number]) =>
      sendMessage(ctx, bot, { type, to: [to], topic: type === 'stream' ? message.topic : null, content: message.content, readBySender: false, client: input.client }).id;
    if (input.channel === null) {
      const ownerId = bot.botOwnerId;
      if (ownerId === null) throw errors.badRequest('This bot has no owner to send to: name a channel with the stream parameter');
      return input.messages.map((message) => send(ownerId, 'private', message));
    }
    const target = /^\d+$/.test(input.channel) ? Number(input.channel) : input.channel;
    const channel = typeof target === 'number' ? ctx.state.channels.get(target) : ctx.state.channelByName(target);
    if (!channel) {
      const named = typeof target === 'number' ? `channel ID ${target}, but there is no channel with that ID` : `channel #**${target}**, but that channel does not exist. [Create it](#channels/new)`;
      noticeToBotOwner(ctx, bot, `Your bot @_**${bot.fullName}|${bot.id}** tried to send a message to ${named}.`);
      return [];
    }
    return input.messages.map((message) => send(channel.id, 'stream', message));
  }),
};
