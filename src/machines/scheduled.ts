// The scheduled-message lifecycle (spec: States and transitions, "Scheduled message"): scheduled →
// sent at its time; scheduled → failed when it cannot be sent then (sender deactivated, channel
// archived or missing, right to post lost, more than 10 minutes late); failed → scheduled only by
// an edit that gives a new delivery time. Used as a pure function over the stored state.
import { setup, transition } from 'xstate';

export type ScheduledState = 'scheduled' | 'failed' | 'sent';

export type ScheduledEvent = { type: 'scheduled.edit'; newTime: boolean } | { type: 'scheduled.send' } | { type: 'scheduled.fail' };

export const scheduledLifecycle = setup({
  types: { events: {} as ScheduledEvent },
  guards: { newTime: ({ event }) => event.type === 'scheduled.edit' && event.newTime },
}).createMachine({
  id: 'scheduledMessage',
  initial: 'scheduled',
  states: {
    scheduled: {
      on: {
        'scheduled.edit': { target: 'scheduled' },
        'scheduled.send': { target: 'sent' },
        'scheduled.fail': { target: 'failed' },
      },
    },
    failed: { on: { 'scheduled.edit': { target: 'scheduled', guard: 'newTime' } } },
    sent: { type: 'final' },
  },
});

/** The state after the event, or undefined when the machine refuses the move. */
export function moveScheduled(state: ScheduledState, event: ScheduledEvent): ScheduledState | undefined {
  const before = scheduledLifecycle.resolveState({ value: state });
  if (!before.can(event)) return undefined;
  const [after] = transition(scheduledLifecycle, before, event);
  return after.value as ScheduledState;
}
