// The user lifecycle (spec: States and transitions, "User"): active → deactivated → active.
// Used as a pure function: the state is stored with the user (isActive) and restored with
// resolveState; a move the machine refuses leaves the snapshot as it was.
import { setup, transition, type SnapshotFrom } from 'xstate';

export type UserLifecycleEvent =
  | { type: 'user.deactivate'; requesterIsAdmin: boolean; requesterIsOwner: boolean; targetIsOwner: boolean; targetIsOnlyOwner: boolean }
  | { type: 'user.reactivate'; requesterIsAdmin: boolean };

export const userLifecycle = setup({
  types: { events: {} as UserLifecycleEvent },
  guards: {
    mayDeactivate: ({ event }) =>
      event.type === 'user.deactivate' && event.requesterIsAdmin && (!event.targetIsOwner || event.requesterIsOwner) && !event.targetIsOnlyOwner,
    mayReactivate: ({ event }) => event.type === 'user.reactivate' && event.requesterIsAdmin,
  },
}).createMachine({
  id: 'user',
  initial: 'active',
  states: {
    active: { on: { 'user.deactivate': { target: 'deactivated', guard: 'mayDeactivate' } } },
    deactivated: { on: { 'user.reactivate': { target: 'active', guard: 'mayReactivate' } } },
  },
});

export type UserLifecycleState = 'active' | 'deactivated';

export function userSnapshot(isActive: boolean): SnapshotFrom<typeof userLifecycle> {
  return userLifecycle.resolveState({ value: isActive ? 'active' : 'deactivated' });
}

/** The state after the event, or undefined when the machine refuses the move. */
export function moveUser(isActive: boolean, event: UserLifecycleEvent): UserLifecycleState | undefined {
  const before = userSnapshot(isActive);
  const [after] = transition(userLifecycle, before, event);
  return after.value === before.value ? undefined : (after.value as UserLifecycleState);
}
