// How names in message content resolve in a realm, and the mention flags they give each recipient.
import { isInGroup } from '../groups/membership.js';
import type { MentionResolver, Mentions } from '../markdown/index.js';
import type { RealmView } from '../organization/state.js';
import { Flag } from './records.js';

/** What resolving mentions reads: the realm's state, or a render worker's copy of its names. */
export interface NameView {
  activeUserNamed(lowercased: string): { id: number; fullName: string; isActive: boolean } | undefined;
  readonly users: ReadonlyMap<number, { id: number; fullName: string; isActive: boolean }>;
  readonly groups: ReadonlyMap<number, { id: number; name: string; deactivated?: boolean; isSystemGroup: boolean }>;
  channelByName(name: string): { id: number; name: string } | undefined;
}

/** Full names match case-insensitively, as in Zulip; `Name|id` picks one of several. */
export function mentionResolver(state: NameView): MentionResolver {
  return {
    user(name, id) {
      const user = id === undefined ? state.activeUserNamed(name.toLowerCase()) : state.users.get(id);
      return user?.isActive ? { id: user.id, fullName: user.fullName } : undefined;
    },
    group(name) {
      const group = [...state.groups.values()].find((candidate) => !candidate.deactivated && !candidate.isSystemGroup && candidate.name.toLowerCase() === name.toLowerCase());
      return group && { id: group.id, name: group.name };
    },
    channel(name) {
      const channel = state.channelByName(name);
      return channel && { id: channel.id, name: channel.name };
    },
  };
}

const MENTION_BITS = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/** A recipient's flags with the mention bits recomputed for new content (the others kept). Being
 * in a mentioned group, through subgroups too, counts as mentioned (spec: Message flags). */
export function withMentionFlags(state: RealmView, flags: number, mentions: Mentions, userId: number, inChannel: boolean, user = state.users.get(userId)): number {
  let next = flags & ~MENTION_BITS;
  let inGroup = false;
  if (user !== undefined) for (const groupId of mentions.groupIds) inGroup ||= isInGroup(state, groupId, user);
  if (mentions.userIds.has(userId) || inGroup) next |= Flag.mentioned;
  if (inChannel && mentions.channelWildcard) next |= Flag.stream_wildcard_mentioned;
  if (inChannel && mentions.topicWildcard) next |= Flag.topic_wildcard_mentioned;
  return next;
}
