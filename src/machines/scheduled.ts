// The scheduled-message lifecycle (spec: States and transitions, "Scheduled message"): scheduled →
// sent at its time; scheduled → failed when it cannot be sent then (sender deactivated, channel
// archived or missing, right to post lost, more than 10 minutes late); failed → scheduled only by
// an edit that gives a new delivery time.
import { setup } from 'xstate';
import { allChecks, type Lifecycle } from './lifecycle.js';

export type ScheduledState = 'scheduled' | 'failed' | 'sent';

export type ScheduledEvent = { type: 'scheduled.edit'; newTime: boolean } | { type: 'scheduled.send' } | { type: 'scheduled.fail' };

const checks: Lifecycle<ScheduledState, ScheduledEvent>['checks'] = { 'scheduled.edit': [['newTimeRequired', (event) => event.newTime]] };

const machine = setup({
  types: { events: {} as ScheduledEvent },
  guards: { checks: allChecks(checks) },
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
    failed: { on: { 'scheduled.edit': { target: 'scheduled', guard: 'checks' } } },
    sent: { type: 'final' },
  },
});

export const scheduledLifecycle: Lifecycle<ScheduledState, ScheduledEvent> = { machine, checks, states: ['scheduled', 'failed', 'sent'] };
