// Who is typing where: typing events start and stop a typist in a conversation (the narrow hash of
// the topic or direct conversation); the client lets a typist lapse after Zulip's 15 seconds
// without a renewal (the server never expires them).
import { narrowHash } from '../narrow.js';
import type { QueuedEvent } from '../types.js';
import type { ChatState } from './state.js';

/** Zulip's typing_started_expiry_period. */
export const TYPING_EXPIRY_MS = 15_000;

export function applyTyping(state: ChatState, event: Extract<QueuedEvent, { type: 'typing' }>, now: number): void {
  const userId = event.sender.user_id;
  if (userId === state.meId) return;
  const conversation =
    event.message_type === 'stream'
      ? narrowHash({ kind: 'topic', channelId: event.stream_id, topic: event.topic })
      : narrowHash({ kind: 'dm', userIds: event.recipients.map((person) => person.user_id).filter((id) => id !== state.meId) });
  const others = state.typing.filter((typist) => !(typist.userId === userId && typist.conversation === conversation));
  state.typing = event.op === 'start' ? [...others, { userId, conversation, expires: now + TYPING_EXPIRY_MS }] : others;
}

/** The typists of a conversation still typing at `now`. */
export const typistsIn = (state: ChatState, conversation: string, now: number): number[] =>
  state.typing.filter((typist) => typist.conversation === conversation && typist.expires > now).map((typist) => typist.userId);
