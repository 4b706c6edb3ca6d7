// Messages and the windows of them fetched per narrow: a new message joins each window of a
// narrow it belongs to that reaches the newest message; edits, deletions, flags, reactions and
// submessages (polls' and to-do lists' events) replace the message objects they change.
import { matches, narrowHash, type Narrow } from '../narrow.js';
import type { Message, QueuedEvent, Reaction } from '../types.js';
import type { ChatState, MessageWindow } from './state.js';

type EventOf<T extends QueuedEvent['type']> = Extract<QueuedEvent, { type: T }>;

/** Messages fetched for a narrow: older ones before the window, or the newest ones of a new window. */
export function addFetched(state: ChatState, narrow: Narrow, messages: Message[], found: { oldest: boolean; newest: boolean }): void {
  for (const message of messages) if (!state.messages.has(message.id)) state.messages.set(message.id, message);
  const key = narrowHash(narrow);
  const existing = state.windows.get(key);
  const ids = new Set([...(existing && !existing.stale ? existing.ids : []), ...messages.map((message) => message.id)]);
  const window: MessageWindow = {
    narrow,
    ids: [...ids].sort((a, b) => a - b),
    foundOldest: found.oldest,
    foundNewest: existing && !existing.stale ? existing.foundNewest : found.newest,
    stale: false,
  };
  state.windows.set(key, window);
}

function placeNew(state: ChatState, message: Message): void {
  state.messages.set(message.id, message);
  for (const [key, window] of state.windows) {
    if (window.foundNewest && matches(window.narrow, message, state.meId)) state.windows.set(key, { ...window, ids: [...window.ids, message.id] });
  }
}

export function applyMessage(state: ChatState, event: EventOf<'message'>): void {
  placeNew(state, { ...event.message, flags: event.flags });
}

function replace(state: ChatState, id: number, change: (message: Message) => Message): void {
  const message = state.messages.get(id);
  if (message) state.messages.set(id, change(message));
}

export function applyEdit(state: ChatState, event: EventOf<'update_message'>): void {
  if (event.rendered_content !== undefined) replace(state, event.message_id, (message) => ({ ...message, content: event.rendered_content! }));
  if (event.subject === undefined && event.new_stream_id === undefined) return;
  for (const id of event.message_ids) {
    replace(state, id, (message) => ({ ...message, ...(event.subject !== undefined ? { subject: event.subject } : {}), ...(event.new_stream_id !== undefined ? { stream_id: event.new_stream_id } : {}) }));
  }
  const destination = event.new_stream_id ?? event.stream_id;
  // Moved messages leave the windows they no longer match; windows they now match may lack them.
  for (const [key, window] of state.windows) {
    const kept = window.ids.filter((id) => {
      const message = state.messages.get(id);
      return message !== undefined && matches(window.narrow, message, state.meId);
    });
    const gains = event.message_ids.some((id) => {
      const message = state.messages.get(id);
      // A message the client never fetched may have moved into a window of its new channel.
      if (!message) return (window.narrow.kind === 'channel' || window.narrow.kind === 'topic') && window.narrow.channelId === destination;
      return !window.ids.includes(id) && matches(window.narrow, message, state.meId);
    });
    if (kept.length !== window.ids.length || gains) state.windows.set(key, { ...window, ids: kept, stale: window.stale || gains });
  }
}

/** The messages a delete_message event names (this client declares bulk_message_deletion; one
 * per event is what older clients get). */
export const deletedIds = (event: EventOf<'delete_message'>): number[] => event.message_ids ?? [event.message_id];

export function applyDelete(state: ChatState, event: EventOf<'delete_message'>): void {
  const gone = new Set(deletedIds(event));
  for (const id of gone) state.messages.delete(id);
  for (const [key, window] of state.windows) {
    if (window.ids.some((id) => gone.has(id))) state.windows.set(key, { ...window, ids: window.ids.filter((id) => !gone.has(id)) });
  }
}

export function applyFlags(state: ChatState, event: EventOf<'update_message_flags'>): void {
  const ids = event.all ? [...state.messages.keys()] : event.messages;
  for (const id of ids) {
    replace(state, id, (message) => {
      const others = message.flags.filter((flag) => flag !== event.flag);
      return { ...message, flags: event.op === 'add' ? [...others, event.flag] : others };
    });
  }
  if (event.flag !== 'starred') return;
  // Starring changes what the starred narrow holds.
  const key = narrowHash({ kind: 'starred' });
  const window = state.windows.get(key);
  if (!window) return;
  const starred = window.ids.filter((id) => event.op === 'add' || !ids.includes(id));
  if (event.op === 'add') for (const id of ids) if (state.messages.has(id) && !starred.includes(id)) starred.push(id);
  state.windows.set(key, { ...window, ids: starred.sort((a, b) => a - b) });
}

export function applyReaction(state: ChatState, event: EventOf<'reaction'>): void {
  const { emoji_name, emoji_code, reaction_type, user_id } = event;
  replace(state, event.message_id, (message) => {
    const others = message.reactions.filter((reaction) => !(reaction.user_id === user_id && reaction.emoji_code === emoji_code && reaction.reaction_type === reaction_type));
    const reactions: Reaction[] = event.op === 'add' ? [...others, { emoji_name, emoji_code, reaction_type, user_id }] : others;
    return { ...message, reactions };
  });
}

export function applySubmessage(state: ChatState, event: EventOf<'submessage'>): void {
  const { submessage_id: id, message_id, sender_id, msg_type, content } = event;
  replace(state, message_id, (message) =>
    message.submessages.some((submessage) => submessage.id === id) ? message : { ...message, submessages: [...message.submessages, { id, message_id, sender_id, msg_type, content }] },
  );
}
