// Latency histograms (HdrHistogram, microseconds, 3 significant digits): recorded in each worker,
// sent as compressed base64 and added together, so percentiles over all workers and machines are
// exact rather than averages of percentiles.
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** One hour, in microseconds: a longer latency is recorded as one hour. */
const HIGHEST_US = 3_600_000_000;

export const newHistogram = (): Histogram => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, bitBucketSize: 'packed' });

export function recordMs(histogram: Histogram, ms: number): void {
  histogram.recordValue(Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000))));
}

export const encode = (histogram: Histogram): string => hdr.encodeIntoCompressedBase64(histogram);

/** The sum of encoded histograms (an empty list: an empty histogram). */
export function merge(encoded: readonly string[]): Histogram {
  const total = newHistogram();
  for (const text of encoded) if (text) total.add(hdr.decodeFromCompressedBase64(text, 'packed'));
  return total;
}

export interface Summary {
  count: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p99_9_ms: number;
  max_ms: number;
  mean_ms: number;
}

const ms = (us: number): number => Math.round(us) / 1000;

export function summarize(histogram: Histogram): Summary {
  const at = (p: number) => (histogram.totalCount === 0 ? 0 : ms(histogram.getValueAtPercentile(p)));
  return {
    count: histogram.totalCount,
    p50_ms: at(50),
    p90_ms: at(90),
    p99_ms: at(99),
    p99_9_ms: at(99.9),
    max_ms: histogram.totalCount === 0 ? 0 : ms(histogram.maxValue),
    mean_ms: histogram.totalCount === 0 ? 0 : Math.round(histogram.mean) / 1000,
  };
}

/** The percentiles a distribution chart is drawn at (100: the slowest). */
export const DISTRIBUTION = [50, 75, 90, 95, 99, 99.9, 99.99, 100];

/** A histogram's latency (ms) at a percentile (100: the slowest); NaN when it is empty. */
export const atPercentile =
  (histogram: Histogram) =>
  (p: number): number =>
    histogram.totalCount === 0 ? NaN : ms(p === 100 ? histogram.maxValue : histogram.getValueAtPercentile(p));
