// The user lifecycle (spec: States and transitions, "User"): active → deactivated → active.
// Deactivating needs an administrator (or the user themself), an owner for an owner, and another
// owner left.
import { setup } from 'xstate';
import { allChecks, type Lifecycle } from './lifecycle.js';

export type UserState = 'active' | 'deactivated';

export type UserEvent =
  | { type: 'user.deactivate'; requesterIsAdmin: boolean; requesterIsSelf: boolean; requesterIsOwner: boolean; targetIsOwner: boolean; targetIsOnlyOwner: boolean }
  | { type: 'user.reactivate'; requesterIsAdmin: boolean };

const checks: Lifecycle<UserState, UserEvent>['checks'] = {
  'user.deactivate': [
    ['adminRequired', (event) => event.requesterIsAdmin || event.requesterIsSelf],
    ['ownerRequired', (event) => !event.targetIsOwner || event.requesterIsOwner],
    ['onlyOwner', (event) => !event.targetIsOnlyOwner],
  ],
  'user.reactivate': [['adminRequired', (event) => event.requesterIsAdmin]],
};

const machine = setup({
  types: { events: {} as UserEvent },
  guards: { checks: allChecks(checks) },
}).createMachine({
  id: 'user',
  initial: 'active',
  states: {
    active: { on: { 'user.deactivate': { target: 'deactivated', guard: 'checks' } } },
    deactivated: { on: { 'user.reactivate': { target: 'active', guard: 'checks' } } },
  },
});

export const userLifecycle: Lifecycle<UserState, UserEvent> = { machine, checks, states: ['active', 'deactivated'] };
