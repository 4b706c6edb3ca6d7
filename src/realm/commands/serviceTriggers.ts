// What queues a delivery to an outgoing-webhook bot's service: a new message that mentions the bot
// in a channel it can read, or a direct message to it; written in the message's own commit. The
// deliveries themselves are serviceBots.ts's.
import { canReadChannel } from '../../channels/access.js';
import type { MessageRecord } from '../../messages/records.js';
import { BotType, type BotService, type UserRecord } from '../../users/records.js';
import type { CommandContext } from '../context.js';

/** An active outgoing-webhook bot with its service. */
export type ServiceBot = UserRecord & { service: BotService };

export const isServiceBot = (user: UserRecord | undefined): user is ServiceBot =>
  user !== undefined && user.isActive && user.botType === BotType.outgoingWebhook && user.service !== undefined;

/** Queues a delivery for each outgoing-webhook bot the new message is for: those it mentions in a
 * channel they can read, or the bots of a direct message. A message from such a bot triggers none
 * (two bots answering each other would never stop). Call from the send path. */
export function queueServiceDeliveries(ctx: CommandContext, message: MessageRecord, mentioned: ReadonlySet<number>): void {
  const sender = ctx.state.users.get(message.senderId);
  if (sender?.botType === BotType.outgoingWebhook || sender?.botType === BotType.embedded) return;
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  const candidates = channel ? mentioned : message.participants;
  for (const botId of candidates) {
    const bot = ctx.state.users.get(botId);
    if (botId === message.senderId || !isServiceBot(bot)) continue;
    if (channel && !canReadChannel(ctx.state, channel, bot) && !(bot.botOwnerId !== null && ctx.state.isSubscribed(channel.id, bot.botOwnerId))) continue;
    ctx.save('serviceDelivery', {
      // Outbox rows share the notifications' ID counter.
      realmId: ctx.state.realm.id,
      id: ctx.store.nextId('notification'),
      botId,
      messageId: message.id,
      trigger: channel ? 'mention' : 'direct_message',
      queuedAt: ctx.now,
      attempts: 0,
      dueAt: ctx.config.clock.now(),
    });
  }
}
