// The HTML report a benchmark writes beside its JSON result: what it was measured on, every table
// it printed, a bar chart for each unit the table's columns share (p50 ms and p99 ms together,
// requests/s alone…), and whatever charts (latency distributions, throughput by connections) and
// notes the benchmark adds. Self-contained: no script, no file fetched.
import { barChart, escapeHtml, lineChart, type Chart, type LineChart } from './chart.js';

export type Row = Record<string, string | number>;

export interface Table {
  title: string;
  rows: readonly Row[];
}

export interface ReportExtras {
  charts?: readonly (Chart | LineChart)[];
  notes?: readonly string[];
}

const UNITS = new Set(['ms', 's', 'µs', 'MiB', 'KiB', 'GiB', 'KB', 'MB']);

/** The unit a column is measured in: its last word when that is a unit, a rate (…/s) or a ratio
 * (× …) as it is; undefined for a column that describes the case (messages, users, clients…). */
function unitOf(column: string): string | undefined {
  const last = column.split(' ').at(-1)!;
  if (UNITS.has(last)) return last;
  return column.includes('/s') || column.startsWith('×') ? column : undefined;
}

/** A row's name: the cells of the columns that describe the case, before the first measurement. */
function rowLabel(row: Row, columns: readonly string[]): string {
  const parts: string[] = [];
  for (const column of columns) {
    if (unitOf(column) !== undefined) break;
    const value = row[column];
    parts.push(typeof value === 'number' ? `${value.toLocaleString('en')} ${column}` : String(value ?? ''));
  }
  return parts.join(' · ');
}

/** A chart per unit of a table's measured columns. */
export function tableCharts(table: Table): Chart[] {
  const columns = Object.keys(table.rows[0] ?? {});
  const byUnit = new Map<string, string[]>();
  for (const column of columns) {
    const unit = unitOf(column);
    if (unit !== undefined && table.rows.some((row) => typeof row[column] === 'number')) byUnit.set(unit, [...(byUnit.get(unit) ?? []), column]);
  }
  return [...byUnit].map(([unit, series]) => ({
    title: table.title,
    unit,
    series,
    groups: table.rows.map((row) => ({ label: rowLabel(row, columns), values: Object.fromEntries(series.map((column) => [column, typeof row[column] === 'number' ? row[column] : NaN])) })),
  }));
}

const cell = (value: string | number | undefined): string => (typeof value === 'number' ? (Number.isInteger(value) ? value.toLocaleString('en') : value.toFixed(2)) : escapeHtml(value ?? ''));

function htmlTable(table: Table): string {
  const columns = Object.keys(table.rows[0] ?? {});
  const head = columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('');
  const body = table.rows.map((row) => `<tr>${columns.map((column) => `<td>${cell(row[column])}</td>`).join('')}</tr>`).join('\n');
  return `<h2>${escapeHtml(table.title)}</h2><table><tr>${head}</tr>\n${body}</table>`;
}

export function htmlReport(name: string, measuredOn: string, tables: readonly Table[], extras: ReportExtras = {}): string {
  const sections = tables.map((table) => `${htmlTable(table)}\n${tableCharts(table).map(barChart).join('\n')}`);
  const charts = (extras.charts ?? []).map((chart) => (chart.kind === 'lines' ? lineChart(chart) : barChart(chart)));
  const notes = (extras.notes ?? []).map((note) => `<p>${escapeHtml(note)}</p>`);
  return `<!doctype html><meta charset="utf-8"><title>${escapeHtml(name)}</title>
<style>body{font-family:sans-serif;max-width:960px;margin:1em auto}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f3f4f6}</style>
<h1>${escapeHtml(name)}</h1><p>Measured on ${escapeHtml(measuredOn)}.</p>
${[...sections, ...charts, ...notes].join('\n')}
`;
}
