// The client's state: what register answered, kept current by the queue's events (apply.ts), and
// the message windows fetched per narrow. Changes replace the objects they touch (a message, a
// window), so views can tell what changed by identity.
import type { Narrow } from '../narrow.js';
import type { Message, Subscription, User } from '../types.js';
import { conversationsFromRegister, type Conversation } from './conversations.js';
import { unreadFromRegister, type Unread, type UnreadMsgs } from './unread.js';

/** The messages of one narrow fetched so far: a contiguous run, oldest first. */
export interface MessageWindow {
  narrow: Narrow;
  ids: number[];
  foundOldest: boolean;
  foundNewest: boolean;
  /** A move or edit may have brought messages in that the window does not have: fetch it anew when shown. */
  stale: boolean;
}

/** Zulip's modern presence: when the user was last active, and last connected at all (seconds). */
export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

/** A topic of a channel, by its newest message. */
export interface Topic {
  name: string;
  maxId: number;
}

/** Someone typing in a conversation (its narrow's hash), until `expires` (ms). */
export interface Typist {
  userId: number;
  conversation: string;
  expires: number;
}

export interface ChatState {
  meId: number;
  users: Map<number, User>;
  subscriptions: Map<number, Subscription>;
  /** Topics of the channels whose topics were fetched. */
  topics: Map<number, Topic[]>;
  messages: Map<number, Message>;
  /** By the narrow's hash. */
  windows: Map<string, MessageWindow>;
  unread: Unread;
  /** Direct conversations by their key (conversations.ts). */
  conversations: Map<string, Conversation>;
  presence: Map<number, Presence>;
  typing: Typist[];
}

/** What POST /register answers to the client's fetch types. */
export interface RegisterAnswer {
  queue_id: string;
  last_event_id: number;
  user_id: number;
  realm_users: User[];
  subscriptions: Subscription[];
  unread_msgs: UnreadMsgs;
  presences: Record<string, Presence>;
  recent_private_conversations: { max_message_id: number; user_ids: number[] }[];
}

/** What register is asked for ('message' brings unread_msgs). */
export const FETCH_EVENT_TYPES = ['realm_user', 'subscription', 'message', 'presence', 'recent_private_conversations'];

export function stateFromRegister(register: RegisterAnswer): ChatState {
  return {
    meId: register.user_id,
    users: new Map(register.realm_users.map((user) => [user.user_id, user])),
    subscriptions: new Map(register.subscriptions.map((subscription) => [subscription.stream_id, subscription])),
    topics: new Map(),
    messages: new Map(),
    windows: new Map(),
    unread: unreadFromRegister(register.unread_msgs, register.user_id),
    conversations: conversationsFromRegister(register.recent_private_conversations, register.user_id),
    presence: new Map(Object.entries(register.presences).map(([id, presence]) => [Number(id), presence])),
    typing: [],
  };
}
