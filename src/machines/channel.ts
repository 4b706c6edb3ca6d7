// The channel lifecycle (spec: States and transitions, "Channel"): active ⇄ archived. Archiving is
// DELETE /streams/{id}; unarchiving only PATCH /streams/{id} with is_archived. Both need the right
// to administer the channel.
import { setup } from 'xstate';
import { allChecks, type Lifecycle } from './lifecycle.js';

export type ChannelState = 'active' | 'archived';

export type ChannelEvent = { type: 'channel.archive' | 'channel.unarchive'; mayAdminister: boolean };

const administer = [['insufficientRights', (event: ChannelEvent) => event.mayAdminister]] as const;
const checks: Lifecycle<ChannelState, ChannelEvent>['checks'] = { 'channel.archive': administer, 'channel.unarchive': administer };

const machine = setup({
  types: { events: {} as ChannelEvent },
  guards: { checks: allChecks(checks) },
}).createMachine({
  id: 'channel',
  initial: 'active',
  states: {
    active: { on: { 'channel.archive': { target: 'archived', guard: 'checks' } } },
    archived: { on: { 'channel.unarchive': { target: 'active', guard: 'checks' } } },
  },
});

export const channelLifecycle: Lifecycle<ChannelState, ChannelEvent> = { machine, checks, states: ['active', 'archived'] };
