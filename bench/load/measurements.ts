// What a worker measures, in a form that crosses threads and machines (plain JSON, histograms
// encoded) and adds up exactly: per operation its latencies and errors, delivery's latencies and
// counts, a per-second timeline, and how well the tool kept its own schedule.
import { encode, merge, newHistogram, recordMs, type Histogram } from './histogram.js';

export interface OperationData {
  histogram: string;
  errors: Record<string, number>;
}

export interface SecondData {
  ops: number;
  sends: number;
  errors: number;
  send: string;
  delivery: string;
}

export interface DeliveryData {
  histogram: string;
  /** Deliveries owed by the messages the server acknowledged (one per recipient's queue). */
  expected: number;
  /** Deliveries seen within the bound, each (recipient, message) once. */
  delivered: number;
  late: number;
  duplicated: number;
}

export interface Measurements {
  operations: Record<string, OperationData>;
  delivery: DeliveryData;
  timeline: Record<string, SecondData>;
  /** How late the tool started operations against their intended time. */
  scheduleLag: string;
  loopDelayMaxMs: number;
  stream: { transports: Record<string, number>; reconnects: number; reregisters: number };
  /** Operations scheduled that were never started (a run stopped early). */
  skipped: number;
}

interface Second {
  ops: number;
  sends: number;
  errors: number;
  send: Histogram;
  delivery: Histogram;
}

/** A worker's recorder. Seconds count from the start of the schedule. */
export class Recorder {
  private readonly operations = new Map<string, { histogram: Histogram; errors: Map<string, number> }>();
  private readonly seconds = new Map<number, Second>();
  readonly deliveryLatency = newHistogram();
  readonly lag = newHistogram();
  readonly delivery = { expected: 0, delivered: 0, late: 0, duplicated: 0 };
  readonly stream = { transports: {} as Record<string, number>, reconnects: 0, reregisters: 0 };
  loopDelayMaxMs = 0;
  skipped = 0;
  /** Latencies since the live line last asked, by operation (and 'delivery'). */
  private interval = new Map<string, Histogram>();

  private recordInterval(name: string, ms: number): void {
    let histogram = this.interval.get(name);
    if (!histogram) this.interval.set(name, (histogram = newHistogram()));
    recordMs(histogram, ms);
  }

  /** The latencies recorded since the last call, encoded, and a fresh start. */
  takeInterval(): Record<string, string> {
    const taken = Object.fromEntries([...this.interval].map(([name, histogram]) => [name, encode(histogram)]));
    this.interval = new Map();
    return taken;
  }

  private operation(name: string) {
    let entry = this.operations.get(name);
    if (!entry) this.operations.set(name, (entry = { histogram: newHistogram(), errors: new Map() }));
    return entry;
  }

  private second(index: number): Second {
    let entry = this.seconds.get(index);
    if (!entry) this.seconds.set(index, (entry = { ops: 0, sends: 0, errors: 0, send: newHistogram(), delivery: newHistogram() }));
    return entry;
  }

  /** An operation that was answered with success, `ms` after its intended start. */
  success(name: string, second: number, ms: number): void {
    recordMs(this.operation(name).histogram, ms);
    this.recordInterval(name, ms);
    const entry = this.second(second);
    entry.ops++;
    if (name === 'send') {
      entry.sends++;
      recordMs(entry.send, ms);
    }
  }

  /** A failed operation: its latency counts too (a server that fails slowly is slow), and the error
   * by its key ("429 RATE_LIMIT_HIT", "network ECONNRESET"). */
  failure(name: string, second: number, ms: number, key: string): void {
    const entry = this.operation(name);
    recordMs(entry.histogram, ms);
    this.recordInterval(name, ms);
    entry.errors.set(key, (entry.errors.get(key) ?? 0) + 1);
    const at = this.second(second);
    at.ops++;
    at.errors++;
  }

  delivered(second: number, ms: number): void {
    recordMs(this.deliveryLatency, ms);
    this.recordInterval('delivery', ms);
    recordMs(this.second(second).delivery, ms);
  }

  snapshot(): Measurements {
    return {
      operations: Object.fromEntries([...this.operations].map(([name, { histogram, errors }]) => [name, { histogram: encode(histogram), errors: Object.fromEntries(errors) }])),
      delivery: { histogram: encode(this.deliveryLatency), ...this.delivery },
      timeline: Object.fromEntries([...this.seconds].map(([index, s]) => [String(index), { ops: s.ops, sends: s.sends, errors: s.errors, send: encode(s.send), delivery: encode(s.delivery) }])),
      scheduleLag: encode(this.lag),
      loopDelayMaxMs: this.loopDelayMaxMs,
      stream: this.stream,
      skipped: this.skipped,
    };
  }
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
}

/** The measurements of several workers (or agents) as one: histograms added, counts summed. */
export function mergeMeasurements(parts: readonly Measurements[]): Measurements {
  const names = new Set(parts.flatMap((part) => Object.keys(part.operations)));
  const operations: Record<string, OperationData> = {};
  for (const name of names) {
    const present = parts.flatMap((part) => (part.operations[name] ? [part.operations[name]] : []));
    const errors: Record<string, number> = {};
    for (const data of present) addCounts(errors, data.errors);
    operations[name] = { histogram: encode(merge(present.map((data) => data.histogram))), errors };
  }
  const seconds = new Set(parts.flatMap((part) => Object.keys(part.timeline)));
  const timeline: Record<string, SecondData> = {};
  for (const second of seconds) {
    const present = parts.flatMap((part) => (part.timeline[second] ? [part.timeline[second]] : []));
    const sum = (field: 'ops' | 'sends' | 'errors') => present.reduce((total, data) => total + data[field], 0);
    timeline[second] = { ops: sum('ops'), sends: sum('sends'), errors: sum('errors'), send: encode(merge(present.map((d) => d.send))), delivery: encode(merge(present.map((d) => d.delivery))) };
  }
  const count = (pick: (part: Measurements) => number) => parts.reduce((total, part) => total + pick(part), 0);
  const transports: Record<string, number> = {};
  for (const part of parts) addCounts(transports, part.stream.transports);
  return {
    operations,
    delivery: {
      histogram: encode(merge(parts.map((part) => part.delivery.histogram))),
      expected: count((p) => p.delivery.expected),
      delivered: count((p) => p.delivery.delivered),
      late: count((p) => p.delivery.late),
      duplicated: count((p) => p.delivery.duplicated),
    },
    timeline,
    scheduleLag: encode(merge(parts.map((part) => part.scheduleLag))),
    loopDelayMaxMs: Math.max(0, ...parts.map((part) => part.loopDelayMaxMs)),
    stream: { transports, reconnects: count((p) => p.stream.reconnects), reregisters: count((p) => p.stream.reregisters) },
    skipped: count((p) => p.skipped),
  };
}
