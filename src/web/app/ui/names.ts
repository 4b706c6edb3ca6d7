// How the page names things: narrows, conversations, people.
import type { ChatState } from '../model/state.js';
import type { Narrow } from '../narrow.js';

export const userName = (state: ChatState, id: number): string => state.users.get(id)?.full_name ?? 'Unknown user';

export const channelName = (state: ChatState, id: number): string => state.subscriptions.get(id)?.name ?? `Channel ${id}`;

export const conversationName = (state: ChatState, userIds: number[]): string => userIds.map((id) => userName(state, id)).join(', ');

export function narrowTitle(state: ChatState, narrow: Narrow): string {
  switch (narrow.kind) {
    case 'all':
      return 'Combined feed';
    case 'channel':
      return `#${channelName(state, narrow.channelId)}`;
    case 'topic':
      return `#${channelName(state, narrow.channelId)} › ${narrow.topic}`;
    case 'dm':
      return `Direct messages with ${conversationName(state, narrow.userIds)}`;
    case 'mentions':
      return 'Mentions';
    case 'starred':
      return 'Starred messages';
  }
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const messageTime = (timestamp: number): string => timeFormat.format(new Date(timestamp * 1000));
