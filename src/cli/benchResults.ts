// The latest benchmark results as Markdown, for docs/benchmarks.md's generated block: one section
// per bench/results/<name>.json (what `npm run bench` wrote last), with the machine, date, commit
// and options it recorded. Benchmarks write different shapes (bench/lib/stats.ts writeResult: rows
// of a table, named tables, nested measures such as fanout's `last_delivery_ms.p50`), so the
// rendering follows the JSON rather than knowing each benchmark: an array of objects is a table,
// everything else one `measure | value` table, nested objects by their paths (`a.b.c`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const resultsDir = new URL('../../../bench/results/', import.meta.url);

/** The keys every result has (writeResult adds them), shown in the section's first lines. */
const HEADER_KEYS = new Set(['benchmark', 'date', 'measuredOn', 'options']);

/** Longer text (PostgreSQL's query plans) stays in the JSON: a table cell cannot hold it. */
const LONGEST_CELL = 120;

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toLocaleString('en') : value.toLocaleString('en', { maximumSignificantDigits: 3 });
  if (typeof value !== 'string') return cell(JSON.stringify(value));
  const text = value.length > LONGEST_CELL ? `(${value.length.toLocaleString('en')} characters, in the JSON)` : value;
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A nested object's leaves as `a.b.c` paths. */
function flatten(object: JsonObject, prefix = ''): [string, Json][] {
  return Object.entries(object).flatMap(([key, value]): [string, Json][] => (isObject(value) ? flatten(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]]));
}

function table(columns: readonly string[], rows: readonly (readonly (Json | undefined)[])[]): string {
  return [`| ${columns.map(cell).join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

/** An array of objects (a benchmark's rows) as a table of their flattened fields. */
function rowsTable(key: string, value: JsonObject[]): string {
  const rows = value.map((row) => Object.fromEntries(flatten(row)));
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return `\`${key}\`:\n\n${table(columns, rows.map((row) => columns.map((column) => row[column])))}`;
}

const isRows = (value: Json): value is JsonObject[] => Array.isArray(value) && value.length > 0 && value.every(isObject);

/** One result file as a section: its heading, what it was measured on, then each part. */
export function renderResult(result: JsonObject): string {
  const machine = isObject(result.measuredOn) ? result.measuredOn : {};
  const options = isObject(result.options) ? flatten(result.options).map(([key, value]) => `${key} ${cell(value)}`).join(', ') : '';
  const lines = [
    `### ${cell(result.benchmark)}`,
    `Measured ${cell(result.date)} on ${cell(machine.cpus)} × ${cell(machine.cpu)}, ${cell(machine.memoryGiB)} GiB, Node ${cell(machine.node)}, commit ${cell(machine.commit)}${options ? `; options: ${options}` : ''}.`,
  ];
  const parts = Object.entries(result).filter(([key]) => !HEADER_KEYS.has(key));
  // Everything that is not rows (fanout's figures, search's index sizes, nested as they are) reads
  // best as one table of measures by their paths.
  const measures = flatten(Object.fromEntries(parts.filter(([, value]) => !isRows(value))));
  if (measures.length > 0) lines.push(table(['measure', 'value'], measures));
  for (const [key, value] of parts) if (isRows(value)) lines.push(rowsTable(key, value));
  return lines.join('\n\n');
}

/** Every result under bench/results, by name. */
export function benchResults(): string {
  const files = existsSync(resultsDir) ? readdirSync(resultsDir).filter((file) => file.endsWith('.json')).sort() : [];
  if (files.length === 0) return 'No results yet: run `npm run bench -- <name>`, then `npm run docs`.';
  return files.map((file) => renderResult(JSON.parse(readFileSync(new URL(file, resultsDir), 'utf8')) as JsonObject)).join('\n\n');
}
