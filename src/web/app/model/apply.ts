// Applies one queued event to the client's state, each kind by the module of its area (as the
// tests' applyEvent and Zulip's clients do): nothing is fetched again.
import type { QueuedEvent } from '../types.js';
import { applyChannel, applySubscription, noteTopic } from './channels.js';
import { noteConversation } from './conversations.js';
import { applyDelete, applyEdit, applyFlags, applyMessage, applyReaction, applySubmessage, deletedIds } from './messages.js';
import type { ChatState } from './state.js';
import { applyTyping } from './typing.js';
import { addUnread, moveUnread, removeUnread } from './unread.js';
import { applyPresence, applyRealmUser } from './users.js';
import { conversationOf } from '../narrow.js';

export function applyEvent(state: ChatState, event: QueuedEvent, now: number): void {
  switch (event.type) {
    case 'message': {
      applyMessage(state, event);
      const { message, flags } = event;
      if (message.stream_id !== undefined) noteTopic(state, message.stream_id, message.subject, message.id);
      else noteConversation(state.conversations, conversationOf({ ...message, flags }, state.meId), message.id);
      if (flags.includes('read')) return;
      const mentioned = flags.some((flag) => flag.endsWith('mentioned')) ? { mentioned: true as const } : {};
      addUnread(
        state.unread,
        message.id,
        message.stream_id !== undefined ? { type: 'stream', stream_id: message.stream_id, topic: message.subject, ...mentioned } : { type: 'private', user_ids: conversationOf({ ...message, flags }, state.meId), ...mentioned },
      );
      return;
    }
    case 'update_message':
      applyEdit(state, event);
      if (event.subject !== undefined || event.new_stream_id !== undefined) {
        const channelId = event.new_stream_id ?? event.stream_id;
        const topic = event.subject ?? event.orig_subject;
        if (channelId !== undefined && topic !== undefined) moveUnread(state.unread, event.message_ids, channelId, topic);
      }
      return;
    case 'delete_message':
      applyDelete(state, event);
      return removeUnread(state.unread, deletedIds(event));
    case 'update_message_flags':
      applyFlags(state, event);
      if (event.flag !== 'read') return;
      if (event.op === 'add') return removeUnread(state.unread, event.all ? [...state.unread.byId.keys()] : event.messages);
      for (const id of event.messages) {
        const details = event.message_details?.[String(id)];
        if (details) addUnread(state.unread, id, details);
      }
      return;
    case 'reaction':
      return applyReaction(state, event);
    case 'submessage':
      return applySubmessage(state, event);
    case 'subscription':
      return applySubscription(state, event);
    case 'stream':
      return applyChannel(state, event);
    case 'realm_user':
      return applyRealmUser(state, event);
    case 'presence':
      return applyPresence(state, event);
    case 'typing':
      return applyTyping(state, event, now);
    default:
      // The rest of Zulip's events change nothing this client shows.
      return;
  }
}
