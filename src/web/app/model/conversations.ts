// The user's direct conversations, newest first: register's recent_private_conversations, and
// each direct message after it.
/** A conversation by its other users' sorted IDs (just the user: notes to self). */
export interface Conversation {
  key: string;
  userIds: number[];
  maxId: number;
}

export const conversationKey = (userIds: readonly number[]): string => [...userIds].sort((a, b) => a - b).join(',');

export function conversationsFromRegister(recent: { max_message_id: number; user_ids: number[] }[], meId: number): Map<string, Conversation> {
  const conversations = new Map<string, Conversation>();
  for (const entry of recent) {
    const userIds = entry.user_ids.length > 0 ? [...entry.user_ids].sort((a, b) => a - b) : [meId];
    conversations.set(conversationKey(userIds), { key: conversationKey(userIds), userIds, maxId: entry.max_message_id });
  }
  return conversations;
}

export function noteConversation(conversations: Map<string, Conversation>, userIds: number[], messageId: number): void {
  const key = conversationKey(userIds);
  const known = conversations.get(key);
  if (!known || known.maxId < messageId) conversations.set(key, { key, userIds, maxId: messageId });
}

export const recentConversations = (conversations: Map<string, Conversation>): Conversation[] => [...conversations.values()].sort((a, b) => b.maxId - a.maxId);
