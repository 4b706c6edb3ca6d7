// A user's visibility policy for one topic (spec: States and transitions, "Topic mute"): Zulip's
// inherit (0), muted (1), unmuted (2) and followed (3). Every move is allowed from every state, so
// repeating one succeeds (feature level 169); muting needs a subscription to the channel.
import { setup } from 'xstate';
import { allChecks, type Lifecycle } from './lifecycle.js';

export const visibilityPolicies = ['inherit', 'muted', 'unmuted', 'followed'] as const;
export type TopicVisibility = (typeof visibilityPolicies)[number];

export type TopicEvent = { type: 'topic.inherit' | 'topic.mute' | 'topic.unmute' | 'topic.follow'; subscribed: boolean };

const checks: Lifecycle<TopicVisibility, TopicEvent>['checks'] = { 'topic.mute': [['notSubscribed', (event: TopicEvent) => event.subscribed]] };

const machine = setup({
  types: { events: {} as TopicEvent },
  guards: { checks: allChecks(checks) },
}).createMachine({
  id: 'topic',
  initial: 'inherit',
  on: {
    'topic.inherit': { target: '.inherit' },
    'topic.mute': { target: '.muted', guard: 'checks' },
    'topic.unmute': { target: '.unmuted' },
    'topic.follow': { target: '.followed' },
  },
  states: { inherit: {}, muted: {}, unmuted: {}, followed: {} },
});

export const topicLifecycle: Lifecycle<TopicVisibility, TopicEvent> = { machine, checks, states: visibilityPolicies };

/** The event that asks for a policy. */
export const topicEventFor: Record<TopicVisibility, TopicEvent['type']> = {
  inherit: 'topic.inherit',
  muted: 'topic.mute',
  unmuted: 'topic.unmute',
  followed: 'topic.follow',
};
