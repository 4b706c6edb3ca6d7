// A self-contained HTML page with a bar chart (inline SVG, logarithmic scale), written beside a
// benchmark's JSON result: one group of bars per case, one bar per series.
import { mkdirSync, writeFileSync } from 'node:fs';

export interface ChartGroup {
  label: string;
  /** Values by series name; a missing or non-finite value draws no bar. */
  values: Record<string, number>;
}

const COLORS = ['#3b82f6', '#f97316', '#10b981', '#a855f7'];
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function writeChart(name: string, title: string, unit: string, series: readonly string[], groups: readonly ChartGroup[], notes: readonly string[]): string {
  const all = groups.flatMap((group) => series.map((key) => group.values[key] ?? NaN)).filter((value) => Number.isFinite(value) && value > 0);
  const low = Math.pow(10, Math.floor(Math.log10(Math.min(...all, 1))));
  const high = Math.pow(10, Math.ceil(Math.log10(Math.max(...all, 10))));
  const left = 220;
  const width = 640;
  const bar = 16;
  const groupHeight = series.length * bar + 14;
  const top = 30;
  const height = top + groups.length * groupHeight + 40;
  const x = (value: number) => left + (width * (Math.log10(value) - Math.log10(low))) / (Math.log10(high) - Math.log10(low));
  const parts: string[] = [];
  for (let tick = low; tick <= high; tick *= 10) {
    parts.push(`<line x1="${x(tick)}" y1="${top - 5}" x2="${x(tick)}" y2="${height - 35}" stroke="#ddd"/><text x="${x(tick)}" y="${height - 20}" font-size="11" text-anchor="middle">${tick} ${unit}</text>`);
  }
  groups.forEach((group, g) => {
    const y0 = top + g * groupHeight;
    parts.push(`<text x="${left - 8}" y="${y0 + (series.length * bar) / 2 + 4}" font-size="12" text-anchor="end">${escape(group.label)}</text>`);
    series.forEach((key, s) => {
      const value = group.values[key];
      if (value === undefined || !Number.isFinite(value) || value <= 0) return;
      const y = y0 + s * bar;
      parts.push(`<rect x="${left}" y="${y}" width="${Math.max(1, x(value) - left)}" height="${bar - 3}" fill="${COLORS[s % COLORS.length]}"/>`);
      parts.push(`<text x="${x(value) + 4}" y="${y + bar - 5}" font-size="10">${value < 10 ? value.toFixed(2) : value.toFixed(1)}</text>`);
    });
  });
  const legend = series.map((key, s) => `<span style="color:${COLORS[s % COLORS.length]}">■</span> ${escape(key)}`).join(' &nbsp; ');
  const html = `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title>
<body style="font-family:sans-serif;max-width:${left + width + 80}px">
<h2>${escape(title)}</h2><p>${legend}</p>
<svg width="${left + width + 80}" height="${height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>
${notes.map((note) => `<p>${escape(note)}</p>`).join('\n')}
</body>
`;
  const dir = new URL('../../../bench/results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${name}.html`, dir);
  writeFileSync(file, html);
  return file.pathname;
}
