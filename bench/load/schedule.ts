// The open model's schedule: every operation's intended start time, computed before the run from
// the arrival rates alone (wrk2's and k6's constant-arrival-rate habit), so that what the server
// does cannot change when the next operation is due. Rates ramp linearly from zero over the
// ramp-up, hold for the steady phase and fall linearly to zero over the ramp-down.

export interface Phases {
  rampUpS: number;
  steadyS: number;
  rampDownS: number;
}

export interface Slot {
  /** Milliseconds after the schedule's start. */
  at: number;
  op: string;
}

export const totalSeconds = (phases: Phases): number => phases.rampUpS + phases.steadyS + phases.rampDownS;

/** The intended start times (ms) of arrivals at `rate` per second at full rate over the phases:
 * the k-th arrival is where the integral of the rate reaches k - 1/2 (evenly spaced, no burst at 0). */
export function arrivals(rate: number, phases: Phases, limit = Infinity): number[] {
  if (!(rate > 0)) return [];
  const { rampUpS: up, steadyS: steady, rampDownS: down } = phases;
  const upCount = (rate * up) / 2;
  const steadyCount = rate * steady;
  const total = upCount + steadyCount + (rate * down) / 2;
  const times: number[] = [];
  for (let k = 0.5; k < total && times.length < limit; k++) {
    let seconds: number;
    if (k < upCount) seconds = Math.sqrt((2 * k * up) / rate);
    else if (k < upCount + steadyCount) seconds = up + (k - upCount) / rate;
    else {
      // Left in the ramp-down after k: rate·r²/(2·down) with r the time remaining.
      const left = total - k;
      seconds = up + steady + down - Math.sqrt((2 * left * down) / rate);
    }
    times.push(seconds * 1000);
  }
  return times;
}

/** The schedules of several operations at their own rates, as one list by intended time; at most
 * `limit` operations in all (the earliest). */
export function mixedSchedule(rates: Readonly<Record<string, number>>, phases: Phases, limit = Infinity): Slot[] {
  const slots = Object.entries(rates).flatMap(([op, rate]) => arrivals(rate, phases, limit).map((at) => ({ at, op })));
  slots.sort((a, b) => a.at - b.at);
  return slots.slice(0, limit);
}
