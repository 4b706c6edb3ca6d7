// Percentiles, a printed table, and the result every benchmark writes (JSON, and an HTML report of
// the tables it printed), with what it was measured on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { LineChart } from './chart.js';
import { htmlReport, type ReportExtras, type Row, type Table } from './report.js';

export type { Row };

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The percentiles a latency distribution is drawn at (100: the slowest). */
const DISTRIBUTION = [50, 75, 90, 95, 99, 99.9, 100];

/** A chart of latency distributions: each series' latency (ms) at the same percentiles (100: the
 * slowest), however the series computes it (from a list, from a histogram). */
export function percentileChart(title: string, series: readonly { name: string; at: (p: number) => number }[], percentiles: readonly number[] = DISTRIBUTION): LineChart {
  return {
    kind: 'lines',
    title,
    unit: 'ms',
    xTitle: 'percentile',
    points: percentiles.map((p) => (p === 100 ? 'max' : `p${p}`)),
    lines: series.map(({ name, at }) => ({ name, values: percentiles.map(at) })),
  };
}

/** A chart of latency distributions of lists of latencies (ms). */
export const latencyChart = (title: string, series: readonly { name: string; latencies: readonly number[] }[]): LineChart =>
  percentileChart(title, series.map(({ name, latencies }) => ({ name, at: (p: number) => percentile(latencies, p) })));

/** The tables printed since the last result was written: its HTML report shows them. */
const printed: Table[] = [];

export function printTable(title: string, rows: readonly Row[]): void {
  if (rows.length === 0) return;
  printed.push({ title, rows });
  const columns = Object.keys(rows[0]!);
  const cell = (value: string | number): string => (typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : value);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column] ?? '').length)));
  const line = (values: string[]): string => values.map((value, i) => value.padStart(widths[i]!)).join('  ');
  console.log(`\n${title}`);
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column] ?? ''))));
}

const resultsDir = new URL('../../../bench/results/', import.meta.url);

/** The machine and code a figure comes from. */
export function measuredOn(): { cpus: number; cpu: string; memoryGiB: number; node: string; commit: string } {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: resultsDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // Not a git checkout: the figures name no commit.
  }
  const processors = cpus();
  return { cpus: processors.length, cpu: processors[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, commit };
}

/** Writes `<name>.json` (the result, with what it was measured on) and `<name>.html` (the tables
 * printed since the last result, charted, with the benchmark's own charts and notes); answers the
 * JSON file's path. */
export function writeResult(name: string, result: unknown, extras: ReportExtras = {}): string {
  mkdirSync(resultsDir, { recursive: true });
  const machine = measuredOn();
  const file = new URL(`${name}.json`, resultsDir);
  writeFileSync(file, `${JSON.stringify({ benchmark: name, date: new Date().toISOString(), measuredOn: machine, ...(result as object) }, null, 2)}\n`);
  const on = `${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}, commit ${machine.commit}, ${new Date().toISOString()}`;
  writeFileSync(new URL(`${name}.html`, resultsDir), htmlReport(name, on, printed.splice(0), extras));
  return file.pathname;
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Resident memory of a process in bytes (Linux), and how much of it is pages of files it maps
 * (LMDB's data file: clean page cache the kernel may drop at will, shared with other processes). */
export function residentMemory(pid: number): { rss: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), file: kib('RssFile') };
}

/** Resident memory of a process in bytes (Linux). */
export const rssBytes = (pid: number): number => residentMemory(pid).rss;

/** CPU seconds of one thread of a process so far (the main thread's ID is the process's). */
export function threadCpuSeconds(pid: number, thread = pid): number {
  return Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

/** The ID of the process's thread of that name (/proc/<pid>/task/<tid>/comm), if it has one. */
export function threadNamed(pid: number, name: string): number | undefined {
  return threadsNamed(pid, (comm) => comm === name)[0];
}

/** The IDs of the process's threads whose names pass `test`. */
export function threadsNamed(pid: number, test: (name: string) => boolean): number[] {
  return readdirSync(`/proc/${pid}/task`)
    .filter((tid) => test(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()))
    .map(Number);
}

/** CPU time a process has used so far, all its threads together, in seconds (Linux: each thread's
 * time on a CPU from /proc/<pid>/task/<tid>/schedstat, in nanoseconds). Threads that ended are
 * not counted. */
export function cpuSeconds(pid: number): number {
  let nanoseconds = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended while the others were read.
    }
  }
  return nanoseconds / 1e9;
}
