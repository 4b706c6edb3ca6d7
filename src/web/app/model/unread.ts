// Unread messages: where each unread message is (so counts per channel, topic and conversation
// are sums), and which of them mention the user. Register's unread_msgs starts it; message,
// flag, edit and deletion events keep it current, as Zulip's apply_events does.
import type { MessageDetails } from '../types.js';
import { conversationKey } from './conversations.js';

/** Register's unread_msgs. */
export interface UnreadMsgs {
  streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
  pms: { other_user_id: number; unread_message_ids: number[] }[];
  huddles: { user_ids_string: string; unread_message_ids: number[] }[];
  mentions: number[];
}

export interface Unread {
  byId: Map<number, MessageDetails>;
  mentions: Set<number>;
}

export function unreadFromRegister(msgs: UnreadMsgs, meId: number): Unread {
  const byId = new Map<number, MessageDetails>();
  for (const entry of msgs.streams) for (const id of entry.unread_message_ids) byId.set(id, { type: 'stream', stream_id: entry.stream_id, topic: entry.topic });
  for (const entry of msgs.pms) for (const id of entry.unread_message_ids) byId.set(id, { type: 'private', user_ids: [entry.other_user_id] });
  for (const entry of msgs.huddles) {
    const others = entry.user_ids_string.split(',').map(Number).filter((id) => id !== meId);
    for (const id of entry.unread_message_ids) byId.set(id, { type: 'private', user_ids: others });
  }
  return { byId, mentions: new Set(msgs.mentions) };
}

export function addUnread(unread: Unread, id: number, details: MessageDetails): void {
  unread.byId.set(id, details);
  if (details.mentioned) unread.mentions.add(id);
}

export function removeUnread(unread: Unread, ids: readonly number[]): void {
  for (const id of ids) {
    unread.byId.delete(id);
    unread.mentions.delete(id);
  }
}

/** Moved messages count in their new channel and topic. */
export function moveUnread(unread: Unread, ids: readonly number[], channelId: number, topic: string): void {
  for (const id of ids) {
    const details = unread.byId.get(id);
    if (details?.type === 'stream') unread.byId.set(id, { ...details, stream_id: channelId, topic });
  }
}

/** Counts of unread messages: per channel, per channel and topic (lower-cased), per conversation
 * (by its key), and those that mention the user. */
export interface UnreadCounts {
  channels: Map<number, number>;
  topics: Map<string, number>;
  conversations: Map<string, number>;
  mentions: number;
}

export const topicKey = (channelId: number, topic: string): string => `${channelId}:${topic.toLowerCase()}`;

export function countUnread(unread: Unread, meId: number): UnreadCounts {
  const counts: UnreadCounts = { channels: new Map(), topics: new Map(), conversations: new Map(), mentions: unread.mentions.size };
  const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const details of unread.byId.values()) {
    if (details.type === 'stream') {
      if (details.stream_id === null) continue;
      bump(counts.channels, details.stream_id);
      bump(counts.topics, topicKey(details.stream_id, details.topic));
    } else {
      const others = details.user_ids.filter((id) => id !== meId);
      bump(counts.conversations, conversationKey(others.length > 0 ? others : [meId]));
    }
  }
  return counts;
}
