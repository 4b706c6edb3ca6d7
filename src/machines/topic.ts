// A user's visibility policy for one topic (spec: States and transitions, "Topic mute"): Zulip's
// inherit (0), muted (1), unmuted (2) and followed (3). Every move is allowed from every state, so
// repeating one succeeds (feature level 169); muting needs a subscription to the channel.
import { setup, transition, type SnapshotFrom } from 'xstate';

export const visibilityPolicies = ['inherit', 'muted', 'unmuted', 'followed'] as const;
export type TopicVisibility = (typeof visibilityPolicies)[number];

export type TopicEvent = { type: 'topic.inherit' | 'topic.mute' | 'topic.unmute' | 'topic.follow'; subscribed: boolean };

export const topicVisibility = setup({
  types: { events: {} as TopicEvent },
  guards: { subscribed: ({ event }) => event.subscribed },
}).createMachine({
  id: 'topic',
  initial: 'inherit',
  on: {
    'topic.inherit': { target: '.inherit' },
    'topic.mute': { target: '.muted', guard: 'subscribed' },
    'topic.unmute': { target: '.unmuted' },
    'topic.follow': { target: '.followed' },
  },
  states: { inherit: {}, muted: {}, unmuted: {}, followed: {} },
});

const eventFor: Record<TopicVisibility, TopicEvent['type']> = {
  inherit: 'topic.inherit',
  muted: 'topic.mute',
  unmuted: 'topic.unmute',
  followed: 'topic.follow',
};

export function topicSnapshot(policy: TopicVisibility): SnapshotFrom<typeof topicVisibility> {
  return topicVisibility.resolveState({ value: policy });
}

/** The policy after asking for `wanted`, or undefined when the machine refuses. */
export function moveTopic(current: TopicVisibility, wanted: TopicVisibility, subscribed: boolean): TopicVisibility | undefined {
  const before = topicSnapshot(current);
  const event = { type: eventFor[wanted], subscribed };
  if (!before.can(event)) return undefined;
  const [after] = transition(topicVisibility, before, event);
  return after.value as TopicVisibility;
}
