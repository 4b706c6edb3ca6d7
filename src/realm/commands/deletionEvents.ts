// The delete_message event, as each client understands it.
import type { CommandContext } from '../context.js';

/** Announces deleted messages of one conversation: in one event to clients that declared
 * bulk_message_deletion, in one event per message to older ones (Zulip's). */
export function emitDeletion(ctx: CommandContext, where: { message_type: 'stream'; stream_id: number; topic: string } | { message_type: 'private' }, messageIds: number[], userIds: Iterable<number>): void {
  const told = [...userIds];
  ctx.emit({ type: 'delete_message', message_ids: messageIds, ...where }, told, { capability: { name: 'bulk_message_deletion', declared: true } });
  for (const id of messageIds) ctx.emit({ type: 'delete_message', message_id: id, ...where }, told, { capability: { name: 'bulk_message_deletion', declared: false } });
}
