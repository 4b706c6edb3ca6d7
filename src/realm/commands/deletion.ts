// Deleting messages (shared by every command that deletes): rows removed from every index, a
// `delete_message` event to the users who had them, grouped as Zulip groups them, and the
// channel's first_message_id moved on (with its event) when its oldest message goes.
import { normalizeTopic, shownTopic } from '../../messages/emptyTopic.js';
import { emitDeletion } from './deletionEvents.js';
import type { MessageRecord } from '../../messages/records.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';
import { canReadChannel, canSeeChannel, hasPermission } from '../../channels/access.js';
import { errors } from '../../errors.js';
import { isAdmin } from '../../users/records.js';
import { refreshFirstMessageId } from './firstMessage.js';
import { relinkAttachments } from './attachments.js';

import { rowHolders } from './rowHolders.js';

export function deleteMessages(ctx: CommandContext, messages: readonly MessageRecord[]): void {
  if (messages.length === 0) return;
  const byConversation = new Map<number, { members: number[]; ids: number[] }>();
  for (const message of messages) {
    const conversation = byConversation.get(message.recipientId) ?? { members: rowHolders(ctx, message), ids: [] };
    conversation.ids.push(message.id);
    byConversation.set(message.recipientId, conversation);
  }
  // Who had each message: their rows go, one rewrite per chunk.
  const had = new Map<number, number[]>();
  for (const [recipientId, { members, ids }] of byConversation) {
    for (const userId of members) {
      for (const id of ctx.store.userMessages.take(userId, recipientId, ids).keys()) had.set(id, [...(had.get(id) ?? []), userId]);
    }
  }
  const touchedChannels = new Set<number>();
  for (const message of messages) {
    ctx.removeMessage(message);
    relinkAttachments(ctx, message, message.renderedContent, '');
    if (message.channelId !== null) {
      ctx.store.unindexInChannel(message.channelId, message.id, message.topic);
      touchedChannels.add(message.channelId);
    }
  }
  // One event per conversation (channel and topic, or direct messages), to those who had them.
  const groups = new Map<string, { messages: MessageRecord[]; userIds: Set<number> }>();
  for (const message of messages) {
    const key = message.type === 'stream' ? `s:${message.channelId}:${message.topic}` : 'p';
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { messages: [], userIds: new Set() }));
    group.messages.push(message);
    for (const userId of had.get(message.id) ?? []) group.userIds.add(userId);
  }
  for (const { messages: grouped, userIds } of groups.values()) {
    const [first] = grouped;
    const where = first!.channelId !== null ? { message_type: 'stream' as const, stream_id: first!.channelId, topic: first!.topic } : { message_type: 'private' as const };
    emitDeletion(ctx, where, grouped.map((message) => message.id), userIds);
  }
  for (const channelId of touchedChannels) refreshFirstMessageId(ctx, channelId);
}

/** Messages a user sent, by kind (for deactivation's deletion actions). */
export function messagesSentBy(ctx: CommandContext, userId: number, kinds: { publicChannels: boolean; privateChannels: boolean; direct: boolean }): MessageRecord[] {
  const found: MessageRecord[] = [];
  for (const id of ctx.store.sentBy(userId)) {
    const message = ctx.store.messages.get(id);
    // Sender IDs are server-wide, so the index holds only this realm's messages for them.
    if (!message) continue;
    const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
    const wanted = channel ? (channel.inviteOnly ? kinds.privateChannels : kinds.publicChannels) : kinds.direct;
    if (wanted) found.push(message);
  }
  return found;
}

/** How many messages one delete-topic transaction removes. */
export const DELETE_BATCH = 1000;

/** Zulip's default realm_message_content_delete_limit_seconds: own messages are deletable this long. */
export const OWN_MESSAGE_DELETE_LIMIT_SECONDS = 600;

export const deletionCommands = {
  /** DELETE /messages/{id}: the channel's delete groups decide (organization administrators for
   * direct messages); one's own messages only within the time limit. */
  'messages.delete': writeCommand((ctx, input: { messageId: number }) => {
    const user = ctx.user;
    const message = ctx.store.messages.get(input.messageId);
    const received = message !== undefined && ctx.store.userMessages.get(user.id, message.recipientId, input.messageId) !== undefined;
    const channel = message?.channelId == null ? undefined : ctx.state.channels.get(message.channelId);
    if (!message || message.realmId !== ctx.state.realm.id || (!received && !(channel && canReadChannel(ctx.state, channel, user)))) {
      throw errors.badRequest('Invalid message(s)');
    }
    const mayDeleteAny = channel ? hasPermission(ctx.state, channel, user, 'can_delete_any_message_group') : isAdmin(user);
    const ownInTime = message.senderId === user.id && ctx.now - message.timestamp <= OWN_MESSAGE_DELETE_LIMIT_SECONDS;
    const mayDeleteOwn = ownInTime && (channel ? hasPermission(ctx.state, channel, user, 'can_delete_own_message_group') : true);
    if (!mayDeleteAny && !mayDeleteOwn) throw errors.badRequest("You don't have permission to delete this message");
    deleteMessages(ctx, [message]);
    return {};
  }),

  /** GET /users/me/{stream_id}/topics: each topic with its newest message, newest first. */
  'topics.list': readCommand((ctx, input: { channelId: number; allowEmptyTopicName: boolean }) => {
    const user = ctx.user;
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canReadChannel(ctx.state, channel, user)) throw errors.badRequest('Invalid channel ID');
    const newest = new Map<string, { name: string; max_id: number }>();
    for (const [messageId, topic] of ctx.store.channelRange(channel.id, Number.MAX_SAFE_INTEGER, true)) {
      if (!channel.historyPublicToSubscribers && ctx.store.userMessages.get(user.id, channel.recipientId, messageId) === undefined) continue;
      if (!newest.has(topic.toLowerCase())) newest.set(topic.toLowerCase(), { name: topic, max_id: messageId });
    }
    return [...newest.values()].map((entry) => ({ ...entry, name: shownTopic(entry.name, input.allowEmptyTopicName) }));
  }),

  /** One batch of spec endpoint 10: the newest messages of the topic; says whether any remain. */
  'topics.deleteBatch': writeCommand((ctx, input: { channelId: number; topic: string }) => {
    const user = ctx.user;
    if (!isAdmin(user)) throw errors.adminRequired();
    const channel = ctx.state.channels.get(input.channelId);
    if (!channel || !canSeeChannel(ctx.state, channel, user)) throw errors.badRequest('Invalid channel ID');
    const topic = normalizeTopic(input.topic).toLowerCase();
    const doomed: MessageRecord[] = [];
    let remaining = false;
    for (const [id] of ctx.store.topicRange(channel.id, topic, Number.MAX_SAFE_INTEGER, true)) {
      if (doomed.length === DELETE_BATCH) {
        remaining = true;
        break;
      }
      doomed.push(ctx.store.messages.get(id)!);
    }
    deleteMessages(ctx, doomed);
    return { deleted: doomed.length, remaining };
  }),
};
