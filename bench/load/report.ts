// The run's report: report.json (the contract's fields and the rest a load tester reads) and a
// self-contained report.html drawn with the bench suite's charts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { LineChart } from '../lib/chart.js';
import { htmlReport, type Table } from '../lib/report.js';
import { measuredOn, percentileChart } from '../lib/stats.js';
import { atPercentile, DISTRIBUTION, merge, summarize, type Summary } from './histogram.js';
import type { Driven } from './drive.js';
import type { Cast } from './setup.js';
import { totalSeconds, type Phases } from './schedule.js';

export interface OperationReport extends Summary {
  errors: number;
  errors_by_status: Record<string, number>;
}

export interface LoadReport {
  tool: string;
  date: string;
  target: string[];
  server: Cast['server'];
  users: number;
  workers: number;
  phases: { ramp_up_s: number; steady_s: number; ramp_down_s: number };
  interrupted: boolean;
  rate: { requested: number; achieved: number; achieved_overall: number };
  operations: Record<string, OperationReport>;
  delivery: Summary & { errors: number; expected: number; delivered: number; lost: number; late: number; duplicated: number; bound_ms: number };
  stream: Driven['measurements']['stream'];
  timeline: { second: number; ops: number; sends: number; errors: number; send_p50_ms: number; send_p99_ms: number; send_max_ms: number; delivery_p50_ms: number; delivery_p99_ms: number }[];
  tool_health: { cpu_seconds: number; cpu_percent_of_one_core: number; schedule_lag: Summary; event_loop_delay_max_ms: number; skipped: number; kept_schedule: boolean; warnings: string[] };
  machine: ReturnType<typeof measuredOn> & { busy_percent: number; loadavg: number[] };
  /** Each operation's HdrHistogram (compressed base64, microseconds), for exact re-merging. */
  histograms: Record<string, string>;
  find_max?: unknown;
}

/** Schedule lag past which the tool says it did not keep its schedule. */
const LAG_LIMIT_MS = 25;

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function buildReport(driven: Driven, context: { targets: string[]; server: Cast['server']; users: number; workers: number; phases: Phases; rate: number; boundMs: number }): LoadReport {
  const m = driven.measurements;
  const operations: Record<string, OperationReport> = {};
  for (const [name, data] of Object.entries(m.operations)) {
    const errors = Object.values(data.errors).reduce((sum, n) => sum + n, 0);
    operations[name] = { ...summarize(merge([data.histogram])), errors, errors_by_status: data.errors };
  }
  operations.send ??= { ...summarize(merge([])), errors: 0, errors_by_status: {} };
  const seconds = Object.keys(m.timeline).map(Number).sort((a, b) => a - b);
  const timeline = seconds.map((second) => {
    const data = m.timeline[String(second)]!;
    const send = summarize(merge([data.send]));
    const delivery = summarize(merge([data.delivery]));
    return { second, ops: data.ops, sends: data.sends, errors: data.errors, send_p50_ms: send.p50_ms, send_p99_ms: send.p99_ms, send_max_ms: send.max_ms, delivery_p50_ms: delivery.p50_ms, delivery_p99_ms: delivery.p99_ms };
  });
  // Achieved: successful sends per second over the steady phase's seconds (all of the run when it
  // has no steady phase), against the rate requested for it.
  const { rampUpS, steadyS } = context.phases;
  const ran = Math.max(1, Math.min(totalSeconds(context.phases), (driven.endedAt - driven.startAt) / 1000));
  const steadySeconds = timeline.filter((row) => row.second >= rampUpS && row.second < rampUpS + steadyS);
  const steadySpan = Math.min(steadyS, Math.max(0, ran - rampUpS));
  const sendsIn = (rows: typeof timeline) => rows.reduce((sum, row) => sum + row.sends, 0);
  const achievedOverall = sendsIn(timeline) / ran;
  const achieved = steadySpan >= 1 ? sendsIn(steadySeconds) / Math.floor(steadySpan) : achievedOverall;
  const lost = Math.max(0, m.delivery.expected - m.delivery.delivered);
  const lag = summarize(merge([m.scheduleLag]));
  const cpuPercent = (100 * driven.toolCpuSeconds) / Math.max(0.001, (driven.endedAt - driven.startAt) / 1000);
  const warnings: string[] = [];
  if (lag.p99_ms > LAG_LIMIT_MS) warnings.push(`The tool fell behind its own schedule: it started operations up to ${lag.p99_ms} ms late at p99 (max ${lag.max_ms} ms). Latencies still count from the intended times, so they include this lag; use more --workers or another machine.`);
  if (cpuPercent > 90 * context.workers) warnings.push(`The tool used ${round(cpuPercent, 0)}% CPU with ${context.workers} worker(s): it may have been the bottleneck.`);
  if (driven.interrupted) warnings.push('The run was stopped early (Ctrl-C): the figures cover what ran.');
  const histograms: Record<string, string> = Object.fromEntries(Object.entries(m.operations).map(([name, data]) => [name, data.histogram]));
  histograms.delivery = m.delivery.histogram;
  return {
    tool: 'parley load',
    date: new Date(driven.startAt).toISOString(),
    target: context.targets,
    server: context.server,
    users: context.users,
    workers: context.workers,
    phases: { ramp_up_s: context.phases.rampUpS, steady_s: context.phases.steadyS, ramp_down_s: context.phases.rampDownS },
    interrupted: driven.interrupted,
    rate: { requested: context.rate, achieved: round(achieved), achieved_overall: round(achievedOverall) },
    operations,
    delivery: { ...summarize(merge([m.delivery.histogram])), errors: lost + m.delivery.duplicated, expected: m.delivery.expected, delivered: m.delivery.delivered, lost, late: m.delivery.late, duplicated: m.delivery.duplicated, bound_ms: context.boundMs },
    stream: m.stream,
    timeline,
    tool_health: { cpu_seconds: round(driven.toolCpuSeconds), cpu_percent_of_one_core: round(cpuPercent, 1), schedule_lag: lag, event_loop_delay_max_ms: m.loopDelayMaxMs, skipped: m.skipped, kept_schedule: lag.p99_ms <= LAG_LIMIT_MS, warnings },
    machine: { ...measuredOn(), busy_percent: round(100 * driven.machineBusy, 1), loadavg: loadavg().map((value) => round(value)) },
    histograms,
  };
}

/** The percentile-distribution chart of several reports' (or one report's) histograms. */
export const distributionChart = (title: string, series: readonly { name: string; histogram: string }[]): LineChart =>
  percentileChart(
    title,
    series.map(({ name, histogram }) => ({ name, at: atPercentile(merge([histogram])) })),
    DISTRIBUTION,
  );

/** Latency over the run's seconds: each named line a timeline field of each report. */
export function timelineChart(title: string, unit: string, lines: readonly { name: string; report: LoadReport; field: keyof LoadReport['timeline'][number] }[]): LineChart {
  const last = Math.max(0, ...lines.flatMap(({ report }) => report.timeline.map((row) => row.second)));
  const points = Array.from({ length: last + 1 }, (_, s) => s);
  return {
    kind: 'lines',
    title,
    unit,
    xTitle: 'second of the run (by intended start)',
    points: points.map((s) => (s % Math.max(1, Math.ceil(points.length / 20)) === 0 ? s : '')),
    lines: lines.map(({ name, report, field }) => {
      const bySecond = new Map(report.timeline.map((row) => [row.second, row[field]]));
      return { name, values: points.map((s) => bySecond.get(s) ?? NaN) };
    }),
  };
}

export const operationRows = (report: LoadReport) =>
  Object.entries({ ...report.operations, delivery: report.delivery }).map(([name, s]) => ({ operation: name, count: s.count, errors: s.errors, 'p50 ms': s.p50_ms, 'p90 ms': s.p90_ms, 'p99 ms': s.p99_ms, 'p99.9 ms': s.p99_9_ms, 'max ms': s.max_ms }));

export function describeMachine(machine: LoadReport['machine']): string {
  return `${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}, commit ${machine.commit} (machine ${machine.busy_percent}% busy during the run)`;
}

export function reportHtml(report: LoadReport): string {
  const tables: Table[] = [
    { title: `Latency by operation, from the intended start (target ${report.target.join(', ')}, ${report.server.zulip_version})`, rows: operationRows(report) },
    { title: 'Rate and delivery', rows: [{ case: 'run', 'requested rate (sends a second)': report.rate.requested, 'achieved rate': report.rate.achieved, expected: report.delivery.expected, delivered: report.delivery.delivered, lost: report.delivery.lost, duplicated: report.delivery.duplicated }] },
  ];
  const charts = [
    timelineChart('Latency over time', 'ms', [
      { name: 'send p50', report, field: 'send_p50_ms' },
      { name: 'send p99', report, field: 'send_p99_ms' },
      { name: 'delivery p99', report, field: 'delivery_p99_ms' },
    ]),
    timelineChart('Sends answered per second', 'sends/s', [{ name: 'sends', report, field: 'sends' }]),
    distributionChart('Latency by percentile', Object.entries(report.histograms).map(([name, histogram]) => ({ name, histogram }))),
  ];
  const notes = [
    `Users ${report.users}, workers ${report.workers}, phases ${report.phases.ramp_up_s} s up / ${report.phases.steady_s} s steady / ${report.phases.ramp_down_s} s down; event streams ${JSON.stringify(report.stream)}.`,
    `Tool: ${report.tool_health.cpu_seconds} CPU s (${report.tool_health.cpu_percent_of_one_core}% of one core), schedule lag p99 ${report.tool_health.schedule_lag.p99_ms} ms, event-loop delay max ${report.tool_health.event_loop_delay_max_ms} ms.`,
    ...report.tool_health.warnings,
  ];
  return htmlReport(`Load test ${report.date}`, describeMachine(report.machine), tables, { charts, notes });
}

export function writeReport(dir: string, report: LoadReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, 'report.html'), reportHtml(report));
}
