// The user's subscriptions (channel list, colours, muting) and the topics fetched per channel.
import type { QueuedEvent, Subscription } from '../types.js';
import type { ChatState, Topic } from './state.js';

type EventOf<T extends QueuedEvent['type']> = Extract<QueuedEvent, { type: T }>;

export function applySubscription(state: ChatState, event: EventOf<'subscription'>): void {
  switch (event.op) {
    case 'add':
      for (const subscription of event.subscriptions) state.subscriptions.set(subscription.stream_id, subscription);
      return;
    case 'remove':
      for (const { stream_id } of event.subscriptions) state.subscriptions.delete(stream_id);
      return;
    case 'update': {
      const subscription = state.subscriptions.get(event.stream_id);
      if (!subscription) return;
      const changed: Subscription = { ...subscription, [event.property]: event.value };
      // Zulip's in_home_view is the opposite of is_muted.
      if (event.property === 'in_home_view') changed.is_muted = !event.value;
      if (event.property === 'is_muted') changed.in_home_view = !event.value;
      state.subscriptions.set(event.stream_id, changed);
      return;
    }
    case 'peer_add':
    case 'peer_remove':
      return;
  }
}

export function applyChannel(state: ChatState, event: EventOf<'stream'>): void {
  if (event.op === 'delete') for (const id of event.stream_ids) state.subscriptions.delete(id);
  if (event.op !== 'update') return;
  const subscription = state.subscriptions.get(event.stream_id);
  if (subscription && event.property in subscription) state.subscriptions.set(event.stream_id, { ...subscription, [event.property]: event.value });
}

/** Topics newest first. */
const byNewest = (topics: Topic[]) => topics.sort((a, b) => b.maxId - a.maxId);

export function setTopics(state: ChatState, channelId: number, topics: { name: string; max_id: number }[]): void {
  state.topics.set(channelId, byNewest(topics.map((topic) => ({ name: topic.name, maxId: topic.max_id }))));
}

/** A message in a channel whose topics are known makes its topic the newest. */
export function noteTopic(state: ChatState, channelId: number, name: string, messageId: number): void {
  const topics = state.topics.get(channelId);
  if (!topics) return;
  const others = topics.filter((topic) => topic.name.toLowerCase() !== name.toLowerCase());
  state.topics.set(channelId, byNewest([...others, { name, maxId: messageId }]));
}

/** Channels pinned first, then by name. */
export function sortedChannels(state: ChatState): Subscription[] {
  return [...state.subscriptions.values()].sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
}
