// Narrows: the views of messages the client shows (Zulip's), how each is asked of the server, how a
// new message is placed in them, and how each is written in the page's address (#narrow/…).
import type { Message } from './types.js';

export type Narrow =
  | { kind: 'all' }
  | { kind: 'channel'; channelId: number }
  | { kind: 'topic'; channelId: number; topic: string }
  /** A direct conversation with these users (just the user themself: notes to self). */
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'mentions' }
  | { kind: 'starred' };

export const ALL: Narrow = { kind: 'all' };

/** The narrow's address, also its key in the client's state. */
export function narrowHash(narrow: Narrow): string {
  switch (narrow.kind) {
    case 'all':
      return '#all';
    case 'channel':
      return `#narrow/channel/${narrow.channelId}`;
    case 'topic':
      return `#narrow/channel/${narrow.channelId}/topic/${encodeURIComponent(narrow.topic)}`;
    case 'dm':
      return `#narrow/dm/${[...narrow.userIds].sort((a, b) => a - b).join(',')}`;
    case 'mentions':
      return '#narrow/is/mentioned';
    case 'starred':
      return '#narrow/is/starred';
  }
}

/** The narrow an address names; anything else is the combined feed. */
export function parseHash(hash: string): Narrow {
  const parts = hash.replace(/^#/, '').split('/');
  if (parts[0] !== 'narrow') return ALL;
  if (parts[1] === 'channel' && /^\d+$/.test(parts[2] ?? '')) {
    const channelId = Number(parts[2]);
    return parts[3] === 'topic' && parts[4] !== undefined ? { kind: 'topic', channelId, topic: decodeURIComponent(parts[4]) } : { kind: 'channel', channelId };
  }
  if (parts[1] === 'dm' && /^\d+(,\d+)*$/.test(parts[2] ?? '')) return { kind: 'dm', userIds: parts[2]!.split(',').map(Number) };
  if (parts[1] === 'is' && parts[2] === 'mentioned') return { kind: 'mentions' };
  if (parts[1] === 'is' && parts[2] === 'starred') return { kind: 'starred' };
  return ALL;
}

/** The narrow as GET /messages takes it. */
export function apiNarrow(narrow: Narrow): { operator: string; operand: string | number | number[] }[] {
  switch (narrow.kind) {
    case 'all':
      return [];
    case 'channel':
      return [{ operator: 'channel', operand: narrow.channelId }];
    case 'topic':
      return [
        { operator: 'channel', operand: narrow.channelId },
        { operator: 'topic', operand: narrow.topic },
      ];
    case 'dm':
      return [{ operator: 'dm', operand: narrow.userIds }];
    case 'mentions':
      return [{ operator: 'is', operand: 'mentioned' }];
    case 'starred':
      return [{ operator: 'is', operand: 'starred' }];
  }
}

/** The other people of a direct message (just the user for notes to self), sorted. */
export function conversationOf(message: Message, meId: number): number[] {
  if (typeof message.display_recipient === 'string') return [];
  const others = message.display_recipient.map((user) => user.id).filter((id) => id !== meId);
  return (others.length > 0 ? others : [meId]).sort((a, b) => a - b);
}

const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Whether a message belongs in a narrow. */
export function matches(narrow: Narrow, message: Message, meId: number): boolean {
  switch (narrow.kind) {
    case 'all':
      return true;
    case 'channel':
      return message.stream_id === narrow.channelId;
    case 'topic':
      return message.stream_id === narrow.channelId && sameTopic(message.subject, narrow.topic);
    case 'dm':
      return message.type === 'private' && conversationOf(message, meId).join(',') === [...narrow.userIds].sort((a, b) => a - b).join(',');
    case 'mentions':
      return message.flags.some((flag) => flag === 'mentioned' || flag === 'wildcard_mentioned');
    case 'starred':
      return message.flags.includes('starred');
  }
}
