// The channel lifecycle (spec: States and transitions, "Channel"): active ⇄ archived. Archiving is
// DELETE /streams/{id}; unarchiving only PATCH /streams/{id} with is_archived. Both need the right
// to administer the channel. Used as a pure function over the stored isArchived flag.
import { setup, transition } from 'xstate';

export type ChannelEvent = { type: 'channel.archive' | 'channel.unarchive'; mayAdminister: boolean };

export const channelLifecycle = setup({
  types: { events: {} as ChannelEvent },
  guards: { mayAdminister: ({ event }) => event.mayAdminister },
}).createMachine({
  id: 'channel',
  initial: 'active',
  states: {
    active: { on: { 'channel.archive': { target: 'archived', guard: 'mayAdminister' } } },
    archived: { on: { 'channel.unarchive': { target: 'active', guard: 'mayAdminister' } } },
  },
});

/** The archived flag after the event, or undefined when the machine refuses the move. */
export function moveChannel(isArchived: boolean, event: ChannelEvent): boolean | undefined {
  const before = channelLifecycle.resolveState({ value: isArchived ? 'archived' : 'active' });
  if (!before.can(event)) return undefined;
  const [after] = transition(channelLifecycle, before, event);
  return after.value === 'archived';
}
