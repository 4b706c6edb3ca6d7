// Editing messages (PATCH /messages/{id}): content, topic and channel, with propagate_mode; the
// edit history each edit records, and GET /messages/{id}/history (spec endpoint 12).
import { normalizeTopic, shownTopic } from '../../messages/emptyTopic.js';
import { canReadChannel, hasPermission } from '../../channels/access.js';
import type { ChannelRecord } from '../../channels/records.js';
import { errors } from '../../errors.js';
import type { UpdateMessageEvent } from '../../events/catalogue.js';
import { checkContentEdit, checkMove, checkMovedTogether, moveLimit } from '../../messages/editRights.js';
import { editHistory } from '../../messages/history.js';
import { withAlertWordFlag } from '../../messages/alertWords.js';
import { withMentionFlags } from '../../messages/mentions.js';
import { renderFor, type Prerendered, type RenderedMessage } from '../../messages/render.js';
import { relinkAttachments } from './attachments.js';
import { flagNames, renderedFields, type MessageRecord } from '../../messages/records.js';
import { isMeMessage } from '../../messages/view.js';
import type { UserRecord } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';
import { accessibleMessage } from './messageAccess.js';
import { limits } from './limits.js';
import { refreshFirstMessageId } from './firstMessage.js';
import { checkContent } from './messages.js';
import { announceMove, moveRows } from './moves.js';
import { rowHolders } from './rowHolders.js';

export interface EditInput {
  messageId: number;
  content?: string;
  topic?: string;
  channelId?: number;
  propagateMode: 'change_one' | 'change_later' | 'change_all';
  notifyOldThread: boolean;
  notifyNewThread: boolean;
  /** The new content as a render worker rendered it (used only if still valid, see renderFor). */
  prerendered?: Prerendered;
}

/** The messages a topic or channel move takes along (propagate_mode). */
function movedTogether(ctx: CommandContext, message: MessageRecord, mode: EditInput['propagateMode']): MessageRecord[] {
  if (mode === 'change_one' || message.channelId === null) return [message];
  const moved: MessageRecord[] = [];
  for (const [id] of ctx.store.topicRange(message.channelId, message.topic.toLowerCase(), mode === 'change_all' ? 0 : message.id)) moved.push(ctx.store.messages.get(id)!);
  return moved;
}

/** What an edit will do, once every check has passed. */
interface EditPlan {
  editor: UserRecord;
  message: MessageRecord;
  /** The messages that move along (the message alone unless a topic or channel changes). */
  messages: MessageRecord[];
  source?: ChannelRecord;
  target?: ChannelRecord;
  topic?: string;
  content?: string;
  rendered?: RenderedMessage;
  /** The new content's words for the search index, when found where it was rendered. */
  contentTerms?: readonly string[];
  input: EditInput;
}

/** Zulip's check_update_message: every rule an edit must satisfy; nothing is written. */
function checkEdit(ctx: CommandContext, input: EditInput): EditPlan {
  const editor = ctx.user;
  const { message } = accessibleMessage(ctx, editor, input.messageId);
  if (input.content === undefined && input.topic === undefined && input.channelId === undefined) throw errors.badRequest('Nothing to change');
  let content: string | undefined;
  if (input.content !== undefined) {
    checkContentEdit(ctx.state, editor, message, ctx.now);
    content = checkContent(input.content);
  }
  if ((input.topic !== undefined || input.channelId !== undefined) && message.type !== 'stream') throw errors.badRequest('Direct messages have no topic or channel');
  const source = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  if (input.topic !== undefined && source) checkMove(ctx.state, editor, message, source, 'topic', ctx.now);
  let target: ChannelRecord | undefined;
  if (input.channelId !== undefined && source) {
    checkMove(ctx.state, editor, message, source, 'channel', ctx.now);
    target = ctx.state.channels.get(input.channelId);
    if (!target || target.isArchived || !canReadChannel(ctx.state, target, editor)) throw errors.badRequest('Invalid channel ID');
    if (!hasPermission(ctx.state, target, editor, 'can_send_message_group')) throw errors.badRequest("You don't have permission to move this message");
  }
  const topic = input.topic === undefined ? undefined : normalizeTopic(input.topic);
  if (topic !== undefined && [...topic].length > limits.max_topic_length) throw errors.badRequest(`topic is too long (limit: ${limits.max_topic_length} characters)`);
  const messages = topic !== undefined || target !== undefined ? movedTogether(ctx, message, input.propagateMode) : [message];
  if (topic !== undefined) checkMovedTogether(messages, moveLimit(ctx.state, editor, 'topic'), ctx.now);
  if (target !== undefined) checkMovedTogether(messages, moveLimit(ctx.state, editor, 'channel'), ctx.now);
  // Rendered with the sender's settings, as Zulip does, whoever edits.
  const { rendered, contentTerms } = content === undefined ? {} : renderFor(ctx.state, ctx.config, ctx.state.users.get(message.senderId) ?? editor, content, input.prerendered);
  return { editor, message, messages, input, ...(source && { source }), ...(target && { target }), ...(topic !== undefined && { topic }), ...(content !== undefined && { content }), ...(rendered && { rendered }), ...(contentTerms && { contentTerms }) };
}

/** Stores each changed message with its edit record, and keeps the channel and topic indexes in step. */
function applyEdit(ctx: CommandContext, plan: EditPlan): void {
  const { editor, message, content, rendered, topic, target } = plan;
  for (const moved of plan.messages) {
    const edit = { timestamp: ctx.now, userId: editor.id } as NonNullable<MessageRecord['edits']>[number];
    const updated: MessageRecord = { ...moved };
    const newContent = moved.id === message.id && content !== undefined && content !== moved.content;
    if (newContent) {
      Object.assign(edit, { prevContent: moved.content, prevRenderedContent: moved.renderedContent });
      Object.assign(updated, { content, ...renderedFields(rendered!.html) });
    }
    if (topic !== undefined && topic !== moved.topic) {
      edit.prevTopic = moved.topic;
      updated.topic = topic;
    }
    if (target && target.id !== moved.channelId) {
      edit.prevChannelId = moved.channelId!;
      updated.channelId = target.id;
      updated.recipientId = target.recipientId;
    }
    if (Object.keys(edit).length === 2) continue;
    updated.edits = [...(moved.edits ?? []), edit];
    ctx.saveMessage(updated, moved, newContent ? plan.contentTerms : undefined);
    relinkAttachments(ctx, updated, moved.renderedContent, updated.renderedContent);
    if (updated.channelId !== moved.channelId || updated.topic !== moved.topic) {
      ctx.store.unindexInChannel(moved.channelId!, moved.id, moved.topic);
      ctx.store.indexInChannel(updated.channelId!, updated.id, updated.topic);
    }
  }
  if (plan.source && target && target.id !== plan.source.id) moveRows(ctx, plan.messages, plan.source, message.topic, target);
}

/** Each holder's flags on the edited message recomputed from its new content; holders by flags. */
function recomputeFlags(ctx: CommandContext, plan: EditPlan): Map<number, number[]> {
  const { message, content, target } = plan;
  const recipientAfter = target?.recipientId ?? message.recipientId;
  const byFlags = new Map<number, number[]>();
  for (const userId of rowHolders(ctx, { channelId: target?.id ?? message.channelId, participants: message.participants, recipientId: recipientAfter })) {
    const flags = ctx.store.userMessages.get(userId, recipientAfter, message.id);
    if (flags === undefined) continue;
    const mentions = plan.rendered?.mentions;
    const mentioned = mentions ? withMentionFlags(ctx.state, flags, mentions, userId, message.type === 'stream') : flags;
    const next = content === undefined || userId === message.senderId ? mentioned : withAlertWordFlag(mentioned, ctx.state.users.get(userId)?.alertWords, content);
    if (next !== flags) ctx.store.userMessages.put(userId, recipientAfter, message.id, next);
    byFlags.set(next, [...(byFlags.get(next) ?? []), userId]);
  }
  return byFlags;
}

/** Everyone who has the message hears of the edit with their own flags; a move refreshes the
 * channels' first messages and has the notification bot leave its notices. */
function announceEdit(ctx: CommandContext, plan: EditPlan, byFlags: Map<number, number[]>): void {
  const { editor, message, messages, source, target, topic, content, input } = plan;
  const base: Omit<UpdateMessageEvent, 'flags'> = {
    type: 'update_message',
    user_id: editor.id,
    edit_timestamp: ctx.now,
    message_id: message.id,
    message_ids: messages.map((moved) => moved.id),
    rendering_only: false,
    ...(source ? { stream_id: source.id, stream_name: source.name } : {}),
    ...(topic !== undefined || target !== undefined ? { propagate_mode: input.propagateMode, orig_subject: message.topic, subject: topic ?? message.topic, topic_links: [] } : {}),
    ...(target !== undefined ? { new_stream_id: target.id } : {}),
    ...(content !== undefined ? { orig_content: message.content, orig_rendered_content: message.renderedContent, content, rendered_content: plan.rendered!.html, is_me_message: isMeMessage(content) } : {}),
  };
  for (const [flags, userIds] of byFlags) ctx.emit({ ...base, flags: flagNames(flags) }, userIds);
  if (!source || (topic === undefined && target === undefined)) return;
  for (const channelId of new Set([source.id, target?.id ?? source.id])) refreshFirstMessageId(ctx, channelId);
  const moved = messages.filter((candidate) => candidate.topic !== (topic ?? candidate.topic) || (target !== undefined && candidate.channelId !== target.id));
  announceMove(ctx, {
    editor,
    from: { channel: source, topic: message.topic },
    to: { channel: target ?? source, topic: topic ?? message.topic },
    moved,
    toOldThread: input.notifyOldThread,
    toNewThread: input.notifyNewThread,
  });
}

export const editCommands = {
  'messages.edit': writeCommand((ctx, input: EditInput) => {
    const plan = checkEdit(ctx, input);
    applyEdit(ctx, plan);
    announceEdit(ctx, plan, recomputeFlags(ctx, plan));
    return { detached_uploads: [] };
  }),

  'messages.history': readCommand((ctx, input: { messageId: number; allowEmptyTopicName: boolean }) => {
    const { message } = accessibleMessage(ctx, ctx.user, input.messageId);
    if (!ctx.state.realm.editHistoryVisible) throw errors.badRequest('Message edit history is disabled in this organization');
    return editHistory(message, (topic) => shownTopic(topic, input.allowEmptyTopicName));
  }),
};
