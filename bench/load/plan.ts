// What one worker is given: the whole cast (every user's key, every channel), its place among all
// workers of the run (across machines too), and the schedule's parameters. Worker `index` of
// `count` owns the event streams of users index, index+count, … and starts the schedule's slots
// index, index+count, …, so the workers together run the schedule exactly once.
import type { Cast } from './setup.js';
import type { Scenario } from './scenario.js';
import type { Phases } from './schedule.js';

export interface WorkerPlan {
  runId: string;
  index: number;
  count: number;
  /** Servers to spread clients over: user u talks to targets[u % length]. */
  targets: string[];
  cast: Cast;
  scenario: Scenario;
  /** Sends per second (all users together) at full rate. */
  rate: number;
  phases: Phases;
  /** At most this many operations in all (the schedule's earliest). */
  maxOperations: number;
  eventTypes: string[];
  transport: import('./eventStream.js').TransportChoice;
}

/** Operations per second of the whole run, by name, at full rate. */
export function operationRates(plan: Pick<WorkerPlan, 'rate' | 'scenario' | 'cast'>): Record<string, number> {
  const users = plan.cast.users.length;
  const rates: Record<string, number> = { send: plan.rate };
  for (const [name, per] of Object.entries(plan.scenario.operations)) if (per && per.per_user_per_second > 0) rates[name] = per.per_user_per_second * users;
  return rates;
}

/** Messages from worker to its runner. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'progress'; progress: Progress }
  | { type: 'result'; measurements: import('./measurements.js').Measurements }
  | { type: 'failed'; message: string };

/** Messages from a runner to its worker. */
export type RunnerMessage = { type: 'start'; startAt: number } | { type: 'stop' } | { type: 'finish' };

/** A worker's running totals, sent every second. */
export interface Progress {
  errors: number;
  expected: number;
  delivered: number;
  late: number;
  duplicated: number;
  inFlight: number;
  /** The schedule has no slot left to start (run out, or stopped). */
  scheduleDone: boolean;
  /** Latencies of the last second by operation (encoded histograms), for the live line. */
  interval: Record<string, string>;
}
