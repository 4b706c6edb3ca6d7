// A Prometheus histogram for the hot paths (every request, every command). prom-client's own checks
// and hashes the labels of each observation; this one finds a label set's counts through one Map per
// label and keeps them in a Float64Array, and hands them to prom-client only when the metrics are
// read, in the form its Histogram has (the same names, labels, buckets and order), so what is
// scraped and what the status page reads do not change.
import { Histogram, type HistogramConfiguration, type LabelValues } from 'prom-client';

type LabelValue = string | number;

/** One label set's observations: `counts[i]` fell in bucket i alone (not cumulative), the last
 * count beyond the bounds. */
interface Series<T extends string> {
  labels: LabelValues<T>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/** Label values (in `labelNames` order) → the next label's map, the last one's → its series. */
type Level<T extends string> = Map<LabelValue, Level<T> | Series<T>>;

/** What prom-client's Histogram hands its registry (its own form, which its type declarations
 * leave out). */
interface Exported<T extends string> {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: { labels: { le?: number | '+Inf' }; sharedLabels: LabelValues<T>; value: number; metricName: string }[];
}

export class ArrayHistogram<T extends string> extends Histogram<T> {
  private readonly metricName: string;
  private readonly help: string;
  private readonly bounds: readonly number[];
  private readonly names: readonly T[];
  private root: Level<T> = new Map();
  /** Every series, in the order of their first observation (prom-client's order). */
  private series: Series<T>[] = [];

  constructor(config: HistogramConfiguration<T> & { labelNames: readonly T[]; buckets: number[] }) {
    super(config);
    this.metricName = config.name;
    this.help = config.help;
    this.bounds = config.buckets;
    this.names = config.labelNames;
  }

  /** Observes `value` for the label values given in `labelNames` order. */
  record(values: readonly LabelValue[], value: number): void {
    const series = this.find(values);
    const { bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += value;
    series.count++;
  }

  private find(values: readonly LabelValue[]): Series<T> {
    let level = this.root;
    const last = values.length - 1;
    for (let index = 0; index < last; index++) {
      let next = level.get(values[index]!) as Level<T> | undefined;
      if (!next) level.set(values[index]!, (next = new Map()));
      level = next;
    }
    let series = level.get(values[last]!) as Series<T> | undefined;
    if (!series) {
      const labels: LabelValues<T> = {};
      this.names.forEach((name, index) => (labels[name] = values[index]!));
      series = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      level.set(values[last]!, series);
      this.series.push(series);
    }
    return series;
  }

  /** The counts in the form prom-client's Histogram gives the registry to format (and `get()`, which
   * it inherits, turns into the form it answers): a bucket's `le` in `labels`, the series' own
   * labels in `sharedLabels`. */
  getForPromString(): Promise<Exported<T>> {
    const bucket = `${this.metricName}_bucket`;
    const values: Exported<T>['values'] = [];
    for (const { labels, counts, sum, count } of this.series) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        values.push({ labels: { le: bound }, sharedLabels: labels, value: cumulative, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucket },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${this.metricName}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${this.metricName}_count` },
      );
    }
    return Promise.resolve({ name: this.metricName, help: this.help, type: 'histogram', values, aggregator: 'sum' });
  }

  override reset(): void {
    this.root = new Map();
    this.series = [];
  }
}
