// Message endpoints.
import type * as schemas from '../../schemas/index.js';
import { errors } from '../errors.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';
import type { SendInput, WindowInput } from '../realm/commands/messages.js';
import { withPrerendering } from './prerender.js';

/** Zulip's Client.default_read_by_sender: messages sent from Zulip's own apps start read for the
 * sender; those sent by other API clients (integrations using the user's key) do not. */
export function readBySenderDefault(client: string): boolean {
  const name = client.toLowerCase();
  const apps = ['zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android'];
  return apps.includes(name) || name.includes('desktop app') || name.includes('zulipflutter');
}

function recipients(to: Params<typeof schemas.sendMessage>['to'], direct: boolean): (string | number)[] {
  if (Array.isArray(to)) return to;
  if (typeof to === 'number') return [to];
  return direct ? to.split(',').map((part) => part.trim()).filter(Boolean) : [to];
}

export function sendMessage(request: UserRequest, params: Params<typeof schemas.sendMessage>) {
  const direct = params.type === 'direct' || params.type === 'private';
  const input: SendInput = {
    type: direct ? 'private' : 'stream',
    to: recipients(params.to, direct),
    topic: params.topic ?? params.subject ?? null,
    content: params.content,
    readBySender: params.read_by_sender ?? readBySenderDefault(request.client),
    client: request.client,
    localEcho: params.queue_id !== undefined && params.local_id !== undefined ? { queueId: params.queue_id, localId: params.local_id } : undefined,
  };
  return withPrerendering(request, params.content, undefined, (prerendered) => request.realm.ask('messages.send', request.user.userId, prerendered ? { ...input, prerendered } : input));
}

/** What fetching messages and flagging by narrow share: the window. */
type WindowParams = Pick<Params<typeof schemas.getMessages>, 'anchor' | 'include_anchor' | 'narrow'> &
  Partial<Pick<Params<typeof schemas.getMessages>, 'use_first_unread_anchor'>> & { num_before: number; num_after: number };

/** The message window a request names: shared by GET /messages and the flag updates by narrow. */
function windowOf(params: WindowParams): WindowInput {
  const anchor = params.use_first_unread_anchor ? 'first_unread' : (params.anchor ?? 'newest');
  return {
    anchor: anchor === 'newest' || anchor === 'oldest' || anchor === 'first_unread' ? anchor : Number(anchor),
    numBefore: params.num_before,
    numAfter: params.num_after,
    includeAnchor: params.include_anchor,
    narrow: params.narrow,
  };
}

/** A window of a narrow, or the messages of a list of IDs (not both: Zulip's error names every
 * parameter of a window); encoded where the realm runs. */
export function getMessages(request: UserRequest, params: Params<typeof schemas.getMessages>) {
  const view = { applyMarkdown: params.apply_markdown, clientGravatar: params.client_gravatar, allowEmptyTopicName: params.allow_empty_topic_name };
  const { num_before: numBefore, num_after: numAfter } = params;
  if (params.message_ids === undefined) {
    // Required without message_ids, as the reference says.
    if (numBefore === undefined) throw errors.missingArgument('num_before');
    if (numAfter === undefined) throw errors.missingArgument('num_after');
    return request.realm.askFields('messages.window', request.user.userId, { ...windowOf({ ...params, num_before: numBefore, num_after: numAfter }), view });
  }
  if ((numBefore ?? 0) > 0 || (numAfter ?? 0) > 0 || params.anchor !== undefined || params.use_first_unread_anchor) {
    throw errors.incompatibleParameters(['num_before', 'num_after', 'anchor', 'message_ids', 'include_anchor', 'use_first_unread_anchor']);
  }
  return request.realm.askFields('messages.byIds', request.user.userId, { messageIds: params.message_ids, narrow: params.narrow, view });
}

export const renderMessage = (request: UserRequest, params: Params<typeof schemas.renderMessage>) => request.realm.ask('messages.render', request.user.userId, { content: params.content });

export const getMessage = (request: UserRequest, params: Params<typeof schemas.getMessage>) =>
  request.realm.ask('messages.get', request.user.userId, { messageId: params.message_id, applyMarkdown: params.apply_markdown, allowEmptyTopicName: params.allow_empty_topic_name });

export const updateFlags = (request: UserRequest, params: Params<typeof schemas.updateMessageFlags>) =>
  request.realm.ask('flags.update', request.user.userId, { messages: params.messages, op: params.op, flag: params.flag });

export const updateFlagsForNarrow = (request: UserRequest, params: Params<typeof schemas.updateMessageFlagsForNarrow>) =>
  request.realm.ask('flags.updateNarrow', request.user.userId, {
    ...windowOf(params),
    op: params.op,
    flag: params.flag,
  });

export const deleteMessage = (request: UserRequest, params: Params<typeof schemas.deleteMessage>) =>
  request.realm.ask('messages.delete', request.user.userId, { messageId: params.message_id });

export async function getTopics(request: UserRequest, params: Params<typeof schemas.getStreamTopics>) {
  return { topics: await request.realm.ask('topics.list', request.user.userId, { channelId: params.stream_id, allowEmptyTopicName: params.allow_empty_topic_name }) };
}

export const markAllAsRead = (request: UserRequest) => request.realm.ask('flags.markAsRead', request.user.userId, {});

export async function markChannelAsRead(request: UserRequest, params: Params<typeof schemas.markStreamAsRead>) {
  await request.realm.ask('flags.markAsRead', request.user.userId, { channelId: params.stream_id });
  return {};
}

export async function markTopicAsRead(request: UserRequest, params: Params<typeof schemas.markTopicAsRead>) {
  await request.realm.ask('flags.markAsRead', request.user.userId, { channelId: params.stream_id, topic: params.topic_name });
  return {};
}

export const editMessage = (request: UserRequest, params: Params<typeof schemas.updateMessage>) =>
  withPrerendering(request, params.content, params.message_id, (prerendered) =>
    request.realm.ask('messages.edit', request.user.userId, {
      messageId: params.message_id,
      content: params.content,
      topic: params.topic,
      channelId: params.stream_id,
      propagateMode: params.propagate_mode,
      notifyOldThread: params.send_notification_to_old_thread,
      notifyNewThread: params.send_notification_to_new_thread,
      ...(prerendered && { prerendered }),
    }),
  );

export async function getMessageHistory(request: UserRequest, params: Params<typeof schemas.getMessageHistory>) {
  return { message_history: await request.realm.ask('messages.history', request.user.userId, { messageId: params.message_id, allowEmptyTopicName: params.allow_empty_topic_name }) };
}

export async function getReadReceipts(request: UserRequest, params: Params<typeof schemas.getReadReceipts>) {
  return { user_ids: await request.realm.ask('messages.readReceipts', request.user.userId, { messageId: params.message_id }) };
}

export async function checkMessagesMatchNarrow(request: UserRequest, params: Params<typeof schemas.checkMessagesMatchNarrow>) {
  return { messages: await request.realm.ask('messages.matchNarrow', request.user.userId, { messageIds: params.msg_ids, narrow: params.narrow }) };
}

/** What adding and removing a reaction share: the message and the emoji as named. */
const reactionInput = (params: Params<typeof schemas.removeReaction>) => ({
  messageId: params.message_id,
  emojiName: params.emoji_name,
  emojiCode: params.emoji_code,
  reactionType: params.reaction_type,
});

export const addReaction = (request: UserRequest, params: Params<typeof schemas.addReaction>) =>
  request.realm.ask('reactions.add', request.user.userId, { ...reactionInput(params), emojiName: params.emoji_name });

export const removeReaction = (request: UserRequest, params: Params<typeof schemas.removeReaction>) =>
  request.realm.ask('reactions.remove', request.user.userId, reactionInput(params));

export const addSubmessage = (request: UserRequest, params: Params<typeof schemas.submessage>) =>
  request.realm.ask('submessages.add', request.user.userId, { messageId: params.message_id, msgType: params.msg_type, content: params.content });
