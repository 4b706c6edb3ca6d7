// Mentions in message content: who is mentioned, and the wildcards, which set per-recipient flags.
import type { RealmState } from '../realm/state.js';
import { Flag } from './records.js';

export interface Mentions {
  userIds: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
}

const channelWildcards = new Set(['all', 'everyone', 'channel', 'stream']);

/** `@**Name**` or `@**Name|id**` (silent `@_**…**` mentions notify nobody), outside code. */
export function findMentions(state: RealmState, content: string): Mentions {
  const mentions: Mentions = { userIds: new Set(), channelWildcard: false, topicWildcard: false };
  const withoutCode = content.replace(/```[\s\S]*?(```|$)/g, '').replace(/`[^`\n]*`/g, '');
  for (const [, name] of withoutCode.matchAll(/(?<!_)@\*\*([^*\n]+)\*\*/g)) {
    const [fullName, id] = name!.split('|');
    if (channelWildcards.has(name!)) mentions.channelWildcard = true;
    else if (name === 'topic') mentions.topicWildcard = true;
    else {
      const byId = id === undefined ? undefined : state.users.get(Number(id));
      const user = byId ?? [...state.users.values()].find((candidate) => candidate.isActive && candidate.fullName === fullName);
      if (user) mentions.userIds.add(user.id);
    }
  }
  return mentions;
}

const MENTION_BITS = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/** A recipient's flags with the mention bits recomputed for new content (the others kept). */
export function withMentionFlags(flags: number, mentions: Mentions, userId: number, inChannel: boolean): number {
  let next = flags & ~MENTION_BITS;
  if (mentions.userIds.has(userId)) next |= Flag.mentioned;
  if (inChannel && mentions.channelWildcard) next |= Flag.stream_wildcard_mentioned;
  if (inChannel && mentions.topicWildcard) next |= Flag.topic_wildcard_mentioned;
  return next;
}
