// `load compare A B`: two runs' reports side by side (a table, printed and in HTML) and their
// latency distributions and timelines overlaid.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { htmlReport } from '../lib/report.js';
import { printTable } from '../lib/stats.js';
import { describeMachine, distributionChart, timelineChart, type LoadReport } from './report.js';

function readReport(path: string): LoadReport {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'report.json') : path;
  if (!existsSync(file)) throw new Error(`compare: no report at ${file}`);
  return JSON.parse(readFileSync(file, 'utf8')) as LoadReport;
}

export function compare(pathA: string, pathB: string, out: string): string {
  const [a, b] = [readReport(pathA), readReport(pathB)];
  const names = [...new Set([...Object.keys(a.operations), ...Object.keys(b.operations)]), 'delivery'];
  const stat = (report: LoadReport, name: string) => (name === 'delivery' ? report.delivery : report.operations[name]);
  const rows = names.flatMap((name) =>
    (['p50_ms', 'p99_ms', 'p99_9_ms', 'max_ms'] as const).map((field) => {
      const [x, y] = [stat(a, name)?.[field] ?? NaN, stat(b, name)?.[field] ?? NaN];
      return { measure: `${name} ${field.replace('_ms', '').replace('_', '.')}`, 'A ms': x, 'B ms': y, '× B/A': Number.isFinite(x / y) ? Math.round((y / x) * 100) / 100 : '' };
    }),
  );
  const rates = [
    { measure: 'sends/s requested', A: a.rate.requested, B: b.rate.requested },
    { measure: 'sends/s achieved', A: a.rate.achieved, B: b.rate.achieved },
    { measure: 'deliveries lost', A: a.delivery.lost, B: b.delivery.lost },
    { measure: 'deliveries duplicated', A: a.delivery.duplicated, B: b.delivery.duplicated },
    { measure: 'errors (send)', A: a.operations.send?.errors ?? 0, B: b.operations.send?.errors ?? 0 },
  ];
  console.log(`A: ${pathA} (${a.target.join(', ')}, ${a.server.zulip_version}, ${a.date})\nB: ${pathB} (${b.target.join(', ')}, ${b.server.zulip_version}, ${b.date})`);
  printTable('Rates and delivery', rates);
  printTable('Latency (ms, from the intended start)', rows);
  const charts = [
    distributionChart('Send latency by percentile', [
      { name: 'A send', histogram: a.histograms.send ?? '' },
      { name: 'B send', histogram: b.histograms.send ?? '' },
    ]),
    distributionChart('Delivery latency by percentile', [
      { name: 'A delivery', histogram: a.histograms.delivery ?? '' },
      { name: 'B delivery', histogram: b.histograms.delivery ?? '' },
    ]),
    timelineChart('Send p99 over time', 'ms', [
      { name: 'A send p99', report: a, field: 'send_p99_ms' },
      { name: 'B send p99', report: b, field: 'send_p99_ms' },
    ]),
  ];
  mkdirSync(out, { recursive: true });
  const file = join(out, 'compare.html');
  const notes = [`A: ${pathA} — ${a.target.join(', ')}, ${a.server.zulip_version}, ${describeMachine(a.machine)}`, `B: ${pathB} — ${b.target.join(', ')}, ${b.server.zulip_version}, ${describeMachine(b.machine)}`];
  writeFileSync(file, htmlReport('Load test comparison', `A ${a.date}, B ${b.date}`, [{ title: 'Rates and delivery', rows: rates }, { title: 'Latency, A and B', rows }], { charts, notes }));
  return file;
}
