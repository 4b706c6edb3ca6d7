// The load tool's pure parts: the open model's schedule, the objectives of the saturation search,
// and the exact merge of workers' histograms.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encode, merge, newHistogram, recordMs, summarize } from '../../bench/load/histogram.js';
import { mergeMeasurements, Recorder } from '../../bench/load/measurements.js';
import { arrivals, mixedSchedule } from '../../bench/load/schedule.js';
import { broken, parseSlo } from '../../bench/load/slo.js';

const schedule = suite('load schedule');

schedule('a steady rate is evenly spaced at 1/rate, whatever happens at run time', () => {
  const times = arrivals(10, { rampUpS: 0, steadyS: 3, rampDownS: 0 });
  assert.is(times.length, 30);
  assert.ok(Math.abs(times[0]! - 50) < 1e-9);
  for (let i = 1; i < times.length; i++) assert.ok(Math.abs(times[i]! - times[i - 1]! - 100) < 1e-9);
});

schedule('ramps carry half the full rate on average, and arrivals are denser as the rate rises', () => {
  const times = arrivals(100, { rampUpS: 2, steadyS: 3, rampDownS: 2 });
  assert.is(times.length, 100 + 300 + 100);
  assert.ok(times.every((time, i) => i === 0 || time > times[i - 1]!), 'increasing');
  assert.ok(times.at(-1)! < 7000 && times[0]! > 0);
  const gap = (i: number) => times[i + 1]! - times[i]!;
  assert.ok(gap(5) > gap(50) && gap(50) > gap(150) - 1e-9, 'ramp-up spacing shrinks to 1/rate');
  assert.ok(gap(480) > gap(420), 'ramp-down spacing grows');
  assert.is(times.filter((time) => time < 1000).length, 25, 'a quarter of the ramp-up count in its first half');
});

schedule('operations mix by time, and a count bound keeps the earliest', () => {
  const slots = mixedSchedule({ send: 10, fetch: 5 }, { rampUpS: 0, steadyS: 2, rampDownS: 0 });
  assert.is(slots.length, 30);
  assert.is(slots.filter((slot) => slot.op === 'fetch').length, 10);
  assert.ok(slots.every((slot, i) => i === 0 || slot.at >= slots[i - 1]!.at));
  const bounded = mixedSchedule({ send: 10, fetch: 5 }, { rampUpS: 0, steadyS: 2, rampDownS: 0 }, 7);
  assert.equal(bounded, slots.slice(0, 7));
});

const slo = suite('load objectives');

slo('objectives are read in ms or s; one the measurements break is named with its value', () => {
  const objectives = parseSlo('send.p99<100ms, delivery.p99.9<1.5s');
  assert.equal(objectives.map(({ subject, stat, limitMs }) => [subject, stat, limitMs]), [['send', 'p99', 100], ['delivery', 'p99.9', 1500]]);
  const summary = (p99: number, p999: number) => ({ count: 10, p50_ms: 1, p90_ms: 2, p99_ms: p99, p99_9_ms: p999, max_ms: p999, mean_ms: 1 });
  assert.equal(broken(objectives, { send: summary(99, 200), delivery: summary(10, 1499) }), []);
  assert.equal(broken(objectives, { send: summary(100, 200), delivery: summary(10, 20) }), [{ objective: 'send.p99<100ms', measuredMs: 100 }]);
  assert.equal(broken(objectives, { send: summary(1, 2) }), [{ objective: 'delivery.p99.9<1.5s', measuredMs: null }], 'never measured: not shown to hold');
});

slo('an objective the tool cannot read is refused, quoting it', () => {
  assert.throws(() => parseSlo('send.p98<100ms'), /cannot read 'send\.p98<100ms'/);
  assert.throws(() => parseSlo('send.p99<100'), /cannot read/);
});

const histograms = suite('load histograms');

histograms("merging workers' encoded histograms equals recording everything in one", () => {
  const values = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 4999) / 3 + 0.2);
  const whole = newHistogram();
  const parts = [newHistogram(), newHistogram(), newHistogram()];
  values.forEach((value, i) => {
    recordMs(whole, value);
    recordMs(parts[i % 3]!, value);
  });
  // Both sides through the encoding: it keeps each value's bucket (3 significant digits), not the
  // exact maximum.
  assert.equal(summarize(merge(parts.map(encode))), summarize(merge([encode(whole)])));
  assert.ok(Math.abs(summarize(merge([encode(whole)])).max_ms - summarize(whole).max_ms) <= summarize(whole).max_ms / 1000);
  assert.is(summarize(merge([])).count, 0);
});

histograms('measurements of several workers add up: counts summed, errors by key, timelines by second', () => {
  const a = new Recorder();
  const b = new Recorder();
  a.success('send', 0, 5);
  a.failure('send', 1, 30, '429 RATE_LIMIT_HIT');
  b.failure('send', 1, 40, '429 RATE_LIMIT_HIT');
  b.failure('fetch', 2, 2, 'network ECONNRESET');
  a.delivery.expected = 3;
  b.delivery.delivered = 2;
  b.delivery.duplicated = 1;
  const merged = mergeMeasurements([a.snapshot(), b.snapshot()]);
  assert.equal(merged.operations.send!.errors, { '429 RATE_LIMIT_HIT': 2 });
  assert.is(summarize(merge([merged.operations.send!.histogram])).count, 3);
  assert.equal(merged.timeline['1']!.errors, 2);
  assert.equal([merged.delivery.expected, merged.delivery.delivered, merged.delivery.duplicated], [3, 2, 1]);
});

schedule.run();
slo.run();
histograms.run();
