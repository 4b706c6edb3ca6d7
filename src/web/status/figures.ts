// What the status page derives from two snapshots of the server's counters: rates and latency
// percentiles over the interval between them.
import type { Buckets, StatusSnapshot } from '../../ops/metrics.js';

export type { StatusSnapshot };

/** The upper bound (ms) of the bucket holding the q-th quantile of the observations between two
 * readings of a histogram; null when nothing was observed. */
export function percentile(before: Buckets, after: Buckets, q: number): number | null {
  const counts = after.counts.map((count, index) => count - (before.counts[index] ?? 0));
  const total = counts[counts.length - 1] ?? 0;
  if (total <= 0) return null;
  const index = counts.findIndex((count) => count >= q * total);
  const bound = after.bounds[index];
  return bound === undefined ? Infinity : bound * 1000;
}

/** One point of the page's charts. */
export interface Sample {
  at: number;
  eventsPerSecond: number;
  requestsPerSecond: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  commitP99: number | null;
  openSockets: number;
}

const total = (buckets: Buckets): number => buckets.counts[buckets.counts.length - 1] ?? 0;

export function sampleBetween(before: StatusSnapshot, after: StatusSnapshot): Sample {
  const seconds = Math.max(0.001, (after.at - before.at) / 1000);
  return {
    at: after.at,
    eventsPerSecond: (after.eventsDelivered - before.eventsDelivered) / seconds,
    requestsPerSecond: (total(after.requests) - total(before.requests)) / seconds,
    p50: percentile(before.requests, after.requests, 0.5),
    p95: percentile(before.requests, after.requests, 0.95),
    p99: percentile(before.requests, after.requests, 0.99),
    commitP99: percentile(before.commits, after.commits, 0.99),
    openSockets: after.openSockets,
  };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export const formatMs = (ms: number | null): string => (ms === null ? '–' : ms === Infinity ? '> 60 s' : `≤ ${ms < 1 ? ms.toFixed(1) : ms.toFixed(0)} ms`);
