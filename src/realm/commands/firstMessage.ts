// A channel's first_message_id: moved when its oldest message is sent or deleted, and announced.
import { channelObservers } from '../../channels/access.js';
import type { ChannelRecord } from '../../channels/records.js';
import type { CommandContext } from '../context.js';

export function setFirstMessageId(ctx: CommandContext, channel: ChannelRecord, firstMessageId: number | null): void {
  const updated = { ...channel, firstMessageId };
  ctx.saveChannel(updated);
  const observers = channelObservers(ctx.state, updated).map((user) => user.id);
  ctx.emit({ type: 'stream', op: 'update', stream_id: updated.id, name: updated.name, property: 'first_message_id', value: firstMessageId }, observers);
}
