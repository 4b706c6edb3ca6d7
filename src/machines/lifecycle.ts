// Lifecycle machines as pure functions: the state an entity would move to on an event, or why the
// machine refuses. Each machine guards an event by a list of named checks; the first that fails is
// the refusal (rights come before state), and when every check holds, the state that does not take
// the event is the reason: `state`. Commands turn a refusal into the API's error without working
// the reason out again.
import { transition, type AnyStateMachine } from 'xstate';

/** A condition of a move, named by the refusal its failure is. */
export type Check<E> = readonly [refusal: string, holds: (event: E) => boolean];

export interface Lifecycle<S extends string, E extends { type: string }> {
  machine: AnyStateMachine;
  /** Per event type, the conditions its guard checks, in the order refusals are reported. */
  checks: { [T in E['type']]?: readonly Check<Extract<E, { type: T }>>[] };
  /** Every state (tests walk the graph from each). */
  states: readonly S[];
}

export type Outcome<S extends string> = { to: S } | { refused: string };

/** A guard that passes when every check of the event's type holds. */
export function allChecks<E extends { type: string }>(checks: Lifecycle<string, E>['checks']) {
  return ({ event }: { event: E }): boolean => ((checks as Record<string, readonly Check<E>[] | undefined>)[event.type] ?? []).every(([, holds]) => holds(event));
}

export function move<S extends string, E extends { type: string }>(lifecycle: Lifecycle<S, E>, from: S, event: E): Outcome<S> {
  // The machines keep no context: an entity's state is its stored value alone.
  const before = lifecycle.machine.resolveState({ value: from, context: undefined });
  if (before.can(event)) return { to: transition(lifecycle.machine, before, event)[0].value as S };
  const checks = (lifecycle.checks as Record<string, readonly Check<E>[] | undefined>)[event.type] ?? [];
  return { refused: checks.find(([, holds]) => !holds(event))?.[0] ?? 'state' };
}
