// docs/benchmarks.md's latest results are rendered from whatever bench/results/<name>.json holds;
// each benchmark writes its own shape (bench/lib/stats.ts writeResult), and every shape must come
// out as readable tables with the machine it was measured on, not as "[object Object]".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderResult } from '../src/cli/benchResults.js';

const measuredOn = { cpus: 2, cpu: 'AMD EPYC', memoryGiB: 24, node: 'v20.20.2', commit: 'abc1234' };

test('a result of rows (send, http, render, startup) is a table under the machine it ran on', () => {
  const page = renderResult({ benchmark: 'send', date: '2026-11-28T17:03:48.872Z', measuredOn, options: { seconds: 3, quick: true }, rows: [{ load: 'one at a time', 'messages/s': 573.36, 'p50 ms': 1.417 }] });
  assert.match(page, '### send');
  assert.match(page, 'on 2 × AMD EPYC, 24 GiB, Node v20.20.2, commit abc1234; options: seconds 3, quick true.');
  assert.match(page, '| load | messages/s | p50 ms |\n|---|---|---|\n| one at a time | 573 | 1.42 |');
});

test("fanout's flat and nested measures, and search's engines and plans, become measure tables", () => {
  const fanout = renderResult({ benchmark: 'fanout', date: 'd', measuredOn, clients: 10000, last_delivery_ms: { p50: 36.7, p99: 52.25 } });
  assert.match(fanout, '| clients | 10,000 |');
  assert.match(fanout, '| last_delivery_ms.p50 | 36.7 |');
  const search = renderResult({ benchmark: 'search', date: 'd', measuredOn, postgres: { skipped: 'PostgreSQL not installed' }, results: { 'no match': { index: { p50: 0.01 } } }, postgres_plans: { 'no match': 'Limit (cost=0.42..1234.56 rows=100) '.repeat(10) } });
  assert.match(search, '| postgres.skipped | PostgreSQL not installed |');
  assert.match(search, '| results.no match.index.p50 | 0.01 |');
  assert.match(search, '| postgres_plans.no match | (360 characters, in the JSON) |');
  assert.not.match(search, '[object Object]');
});

test('a table cell with a pipe does not break the table', () => {
  assert.match(renderResult({ benchmark: 'x', date: 'd', measuredOn, rows: [{ case: 'a | b', ms: 1 }] }), '| a \\| b | 1 |');
});

test.run();
