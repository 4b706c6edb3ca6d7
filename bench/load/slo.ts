// Service-level objectives for the saturation search: "send.p99<100ms,delivery.p99<250ms" —
// an operation (or delivery), a statistic of its latency, and a bound in ms or s.
import type { Summary } from './histogram.js';

const STATS = { p50: 'p50_ms', p90: 'p90_ms', p99: 'p99_ms', 'p99.9': 'p99_9_ms', max: 'max_ms', mean: 'mean_ms' } as const;
type Stat = keyof typeof STATS;

export interface Objective {
  subject: string;
  stat: Stat;
  limitMs: number;
  text: string;
}

export function parseSlo(text: string): Objective[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const match = /^([a-z_]+)\.(p50|p90|p99|p99\.9|max|mean)\s*<\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)$/.exec(part);
      if (!match) throw new Error(`--slo: cannot read '${part}' (expected e.g. send.p99<100ms, delivery.p99.9<1s)`);
      const value = Number(match[3]) * (match[4] === 's' ? 1000 : 1);
      return { subject: match[1]!, stat: match[2] as Stat, limitMs: value, text: part };
    });
}

/** The objectives a run broke, each with what was measured; an operation the run never did breaks
 * its objective (nothing was shown to hold). */
export function broken(objectives: readonly Objective[], summaries: Readonly<Record<string, Summary>>): { objective: string; measuredMs: number | null }[] {
  return objectives.flatMap((objective): { objective: string; measuredMs: number | null }[] => {
    const summary = summaries[objective.subject];
    if (!summary || summary.count === 0) return [{ objective: objective.text, measuredMs: null }];
    const measured = summary[STATS[objective.stat]];
    return measured < objective.limitMs ? [] : [{ objective: objective.text, measuredMs: measured }];
  });
}
