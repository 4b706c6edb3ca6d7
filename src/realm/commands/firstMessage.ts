// A channel's first_message_id: moved when its oldest message is sent or deleted, and announced.
import { channelObservers } from '../../channels/access.js';
import type { ChannelRecord } from '../../channels/records.js';
import type { CommandContext } from '../context.js';

/** Recomputes a channel's first_message_id from its index (after messages left or arrived),
 * announcing a change. */
export function refreshFirstMessageId(ctx: CommandContext, channelId: number): void {
  const channel = ctx.state.channels.get(channelId);
  if (!channel) return;
  const [first] = ctx.store.channelMessages.getKeys({ start: [channelId, 0], end: [channelId, Number.MAX_SAFE_INTEGER], limit: 1 }) as Iterable<[number, number]>;
  const firstMessageId = first?.[1] ?? null;
  if (firstMessageId !== channel.firstMessageId) setFirstMessageId(ctx, channel, firstMessageId);
}

export function setFirstMessageId(ctx: CommandContext, channel: ChannelRecord, firstMessageId: number | null): void {
  const updated = { ...channel, firstMessageId };
  ctx.save('channel', updated);
  const observers = channelObservers(ctx.state, updated).map((user) => user.id);
  ctx.emit({ type: 'stream', op: 'update', stream_id: updated.id, name: updated.name, property: 'first_message_id', value: firstMessageId }, observers);
}
