// The message object of the API. Its content and avatar depend only on the client's
// apply_markdown and client_gravatar, so one object per combination serves every recipient.
import { shownTopic } from './emptyTopic.js';
import { editTimes } from './history.js';
import type { RealmView } from '../organization/state.js';
import { apiEmail, avatarUrlFor, unknownUserFace } from '../users/view.js';
import type { MessageRecord, ReactionRecord, SubmessageRecord } from './records.js';

export interface MessageViewOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** Whether a channel message in the empty topic shows it as the empty string (events: always,
   * queues of older clients rewrite it at delivery) or by its display name. */
  allowEmptyTopicName: boolean;
}

/** A reaction as message objects show it (the deprecated `user` object is gone from them). */
export const reactionView = (reaction: ReactionRecord) => ({
  emoji_name: reaction.emojiName,
  emoji_code: reaction.emojiCode,
  reaction_type: reaction.reactionType,
  user_id: reaction.userId,
});

/** A submessage as message objects list it (Zulip's SubMessage.get_raw_db_rows). */
export const submessageView = (messageId: number, submessage: SubmessageRecord) => ({
  id: submessage.id,
  message_id: messageId,
  sender_id: submessage.senderId,
  msg_type: submessage.msgType,
  content: submessage.content,
});

/** Zulip's "/me" status messages (Message.is_status_message): the content starts with "/me ",
 * whatever follows (Zulip dropped its old one-paragraph condition); clients show the sender's name
 * in place of "/me", the server renders the text as it renders every other. */
export const isMeMessage = (content: string): boolean => content.startsWith('/me ');

/** The fields in which a message's views for the client variants differ: its content as HTML or
 * Markdown, and the sender's avatar with or without client_gravatar. */
function variantFields(state: RealmView, message: MessageRecord, options: Pick<MessageViewOptions, 'applyMarkdown' | 'clientGravatar'>) {
  return {
    // As the sender sees their own avatar: client_gravatar applies whatever their e-mail's visibility.
    avatar_url: avatarUrlFor(state.users.get(message.senderId)!, true, options.clientGravatar),
    content: options.applyMarkdown ? message.renderedContent : message.content,
    content_type: options.applyMarkdown ? ('text/html' as const) : ('text/x-markdown' as const),
  };
}

export function messageView(state: RealmView, message: MessageRecord, fakeDomain: string, options: MessageViewOptions) {
  const sender = state.users.get(message.senderId)!;
  const channel = message.channelId === null ? undefined : state.channels.get(message.channelId);
  const displayRecipient = channel
    ? channel.name
    : message.participants.map((id) => {
        const user = state.users.get(id)!;
        return { id, email: apiEmail(user, fakeDomain), full_name: user.fullName, is_mirror_dummy: false };
      });
  return {
    id: message.id,
    sender_id: sender.id,
    sender_email: apiEmail(sender, fakeDomain),
    sender_full_name: sender.fullName,
    sender_realm_str: state.realm.subdomain,
    ...variantFields(state, message, options),
    client: message.client,
    display_recipient: displayRecipient,
    recipient_id: message.recipientId,
    ...(channel ? { stream_id: channel.id } : {}),
    subject: message.type === 'stream' ? shownTopic(message.topic, options.allowEmptyTopicName) : '',
    topic_links: [],
    timestamp: message.timestamp,
    ...editTimes(message),
    type: message.type,
    is_me_message: isMeMessage(message.content),
    reactions: (message.reactions ?? []).map(reactionView),
    submessages: message.submessages?.map((submessage) => submessageView(message.id, submessage)) ?? [],
  };
}

/** A message's view for someone who may not see its sender (a restricted guest; Zulip's
 * finalize_payload without can_access_sender): the sender as an "Unknown user", by ID only. */
export function withUnknownSender<V extends { sender_id: number }>(view: V, fakeDomain: string): V & { sender_email: string; sender_full_name: string; avatar_url: string } {
  const face = unknownUserFace(view.sender_id, fakeDomain);
  return { ...view, sender_email: face.email, sender_full_name: face.fullName, avatar_url: face.avatarUrl };
}
