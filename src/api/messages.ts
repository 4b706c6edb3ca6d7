// Message endpoints.
import type { UserRequest } from '../http/route.js';
import type { RawTerm } from '../messages/narrow.js';
import type { WindowInput } from '../realm/commands/messages.js';

/** Zulip's Client.default_read_by_sender: messages sent from Zulip's own apps start read for the
 * sender; those sent by other API clients (integrations using the user's key) do not. */
export function readBySenderDefault(client: string): boolean {
  const name = client.toLowerCase();
  const apps = ['zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android'];
  return apps.includes(name) || name.includes('desktop app') || name.includes('zulipflutter');
}

interface SendParams {
  type: 'direct' | 'private' | 'channel' | 'stream';
  to: string | number | (string | number)[];
  topic?: string;
  subject?: string;
  content: string;
  read_by_sender?: boolean;
  queue_id?: string;
  local_id?: string;
}

function recipients(to: SendParams['to'], direct: boolean): (string | number)[] {
  if (Array.isArray(to)) return to;
  if (typeof to === 'number') return [to];
  return direct ? to.split(',').map((part) => part.trim()).filter(Boolean) : [to];
}

export function sendMessage(request: UserRequest, params: SendParams) {
  const direct = params.type === 'direct' || params.type === 'private';
  return request.realm.ask('messages.send', request.user.userId, {
    type: direct ? 'private' : 'stream',
    to: recipients(params.to, direct),
    topic: params.topic ?? params.subject ?? null,
    content: params.content,
    readBySender: params.read_by_sender ?? readBySenderDefault(request.client),
    client: request.client,
  });
}

interface FetchParams extends WindowParams {
  client_gravatar: boolean;
  apply_markdown: boolean;
}

interface WindowParams {
  anchor?: string;
  use_first_unread_anchor?: boolean;
  num_before: number;
  num_after: number;
  include_anchor: boolean;
  narrow: RawTerm[];
}

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

export const getMessages = (request: UserRequest, params: FetchParams) =>
  request.realm.ask('messages.window', request.user.userId, {
    ...windowOf(params),
    applyMarkdown: params.apply_markdown,
    clientGravatar: params.client_gravatar,
  });

export const renderMessage = (request: UserRequest, params: { content: string }) => request.realm.ask('messages.render', request.user.userId, { content: params.content });

export const getMessage = (request: UserRequest, params: { message_id: number; apply_markdown: boolean }) =>
  request.realm.ask('messages.get', request.user.userId, { messageId: params.message_id, applyMarkdown: params.apply_markdown });

export const updateFlags = (request: UserRequest, params: { messages: number[]; op: 'add' | 'remove'; flag: string }) =>
  request.realm.ask('flags.update', request.user.userId, { messages: params.messages, op: params.op, flag: params.flag });

interface NarrowFlagParams extends WindowParams {
  op: 'add' | 'remove';
  flag: string;
}

export const updateFlagsForNarrow = (request: UserRequest, params: NarrowFlagParams) =>
  request.realm.ask('flags.updateNarrow', request.user.userId, {
    ...windowOf(params),
    op: params.op,
    flag: params.flag,
  });

export const deleteMessage = (request: UserRequest, params: { message_id: number }) =>
  request.realm.ask('messages.delete', request.user.userId, { messageId: params.message_id });

export async function getTopics(request: UserRequest, params: { stream_id: number; allow_empty_topic_name: boolean }) {
  return { topics: await request.realm.ask('topics.list', request.user.userId, { channelId: params.stream_id, allowEmptyTopicName: params.allow_empty_topic_name }) };
}

export const markAllAsRead = (request: UserRequest) => request.realm.ask('flags.markAsRead', request.user.userId, {});

export async function markChannelAsRead(request: UserRequest, params: { stream_id: number }) {
  await request.realm.ask('flags.markAsRead', request.user.userId, { channelId: params.stream_id });
  return {};
}

export async function markTopicAsRead(request: UserRequest, params: { stream_id: number; topic_name: string }) {
  await request.realm.ask('flags.markAsRead', request.user.userId, { channelId: params.stream_id, topic: params.topic_name });
  return {};
}

interface EditParams {
  message_id: number;
  content?: string;
  topic?: string;
  stream_id?: number;
  propagate_mode: 'change_one' | 'change_later' | 'change_all';
  send_notification_to_old_thread: boolean;
  send_notification_to_new_thread: boolean;
}

export const editMessage = (request: UserRequest, params: EditParams) =>
  request.realm.ask('messages.edit', request.user.userId, {
    messageId: params.message_id,
    content: params.content,
    topic: params.topic,
    channelId: params.stream_id,
    propagateMode: params.propagate_mode,
    notifyOldThread: params.send_notification_to_old_thread,
    notifyNewThread: params.send_notification_to_new_thread,
  });

export async function getMessageHistory(request: UserRequest, params: { message_id: number; allow_empty_topic_name: boolean }) {
  return { message_history: await request.realm.ask('messages.history', request.user.userId, { messageId: params.message_id, allowEmptyTopicName: params.allow_empty_topic_name }) };
}
