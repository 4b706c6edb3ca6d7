// Charts as inline SVG for the HTML reports the benchmarks write: bar charts (one group of bars per
// case, one bar per series) and line charts (one line per series over named points on the x axis:
// latency by percentile, throughput by connection count). A value axis is logarithmic when the
// values span more than a factor of 20, else linear from zero.

export interface ChartGroup {
  label: string;
  /** Values by series name; a missing or non-finite value draws no bar. */
  values: Record<string, number>;
}

export interface Chart {
  kind?: 'bars';
  title: string;
  unit: string;
  series: readonly string[];
  groups: readonly ChartGroup[];
}

/** Lines over points named on the x axis, evenly spaced (percentiles, connection counts). */
export interface LineChart {
  kind: 'lines';
  title: string;
  unit: string;
  /** What the x axis counts, and its points in order. */
  xTitle: string;
  points: readonly (string | number)[];
  /** Each line's values at the points, in order; a value that is not a positive number leaves a gap. */
  lines: readonly { name: string; values: readonly number[] }[];
}

const COLORS = ['#3b82f6', '#f97316', '#10b981', '#a855f7', '#ef4444', '#64748b', '#eab308', '#0ea5e9'];
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const LEFT = 260;
const WIDTH = 560;
const BAR = 16;
const TOP = 10;

/** An axis: where a value falls (0 … length) and the ticks to draw. */
function axis(values: number[], length = WIDTH): { x: (value: number) => number; ticks: number[] } {
  const positive = values.filter((value) => value > 0);
  const min = positive.length > 0 ? Math.min(...positive) : 1;
  const max = positive.length > 0 ? Math.max(...positive) : 1;
  if (max / min > 20) {
    const low = Math.pow(10, Math.floor(Math.log10(min)));
    const high = Math.pow(10, Math.ceil(Math.log10(max)));
    const ticks: number[] = [];
    for (let tick = low; tick <= high; tick *= 10) ticks.push(tick);
    return { x: (value) => (length * (Math.log10(value) - Math.log10(low))) / (Math.log10(high) - Math.log10(low)), ticks };
  }
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  const high = Math.ceil(max / step) * step;
  const ticks = Array.from({ length: Math.round(high / step) + 1 }, (_, i) => i * step);
  return { x: (value) => (length * value) / high, ticks };
}

const label = (value: number): string => (value >= 1000 ? Math.round(value).toLocaleString('en') : value < 10 ? value.toFixed(2) : value.toFixed(1));

/** The chart as an HTML fragment: its title, a legend and the SVG. */
export function barChart(chart: Chart): string {
  const values = chart.groups.flatMap((group) => chart.series.map((key) => group.values[key] ?? NaN)).filter((value) => Number.isFinite(value));
  const { x, ticks } = axis(values);
  const groupHeight = chart.series.length * BAR + 10;
  const height = TOP + chart.groups.length * groupHeight + 30;
  const parts: string[] = [];
  for (const tick of ticks) {
    parts.push(`<line x1="${LEFT + x(tick)}" y1="${TOP - 5}" x2="${LEFT + x(tick)}" y2="${height - 25}" stroke="#ddd"/><text x="${LEFT + x(tick)}" y="${height - 10}" font-size="11" text-anchor="middle">${label(tick)}</text>`);
  }
  chart.groups.forEach((group, g) => {
    const y0 = TOP + g * groupHeight;
    parts.push(`<text x="${LEFT - 8}" y="${y0 + (chart.series.length * BAR) / 2 + 4}" font-size="12" text-anchor="end">${escapeHtml(group.label)}</text>`);
    chart.series.forEach((key, s) => {
      const value = group.values[key];
      if (value === undefined || !Number.isFinite(value) || value < 0) return;
      const y = y0 + s * BAR;
      const end = value > 0 ? Math.max(1, x(value)) : 1;
      parts.push(`<rect x="${LEFT}" y="${y}" width="${end}" height="${BAR - 3}" fill="${COLORS[s % COLORS.length]}"/>`);
      parts.push(`<text x="${LEFT + end + 4}" y="${y + BAR - 5}" font-size="10">${label(value)}</text>`);
    });
  });
  return `${heading(chart.title, chart.unit, chart.series)}
<svg width="${LEFT + WIDTH + 80}" height="${height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

/** A chart's title with its unit, and a legend when it has several series. */
function heading(title: string, unit: string, series: readonly string[]): string {
  const legend = series.length > 1 ? `<p>${series.map((key, s) => `<span style="color:${COLORS[s % COLORS.length]}">■</span> ${escapeHtml(key)}`).join(' &nbsp; ')}</p>` : '';
  return `<h3>${escapeHtml(title)} (${escapeHtml(unit)})</h3>${legend}`;
}

const PLOT_LEFT = 60;
const PLOT_HEIGHT = 260;

/** The line chart as an HTML fragment: its title, a legend and the SVG (values up the y axis). */
export function lineChart(chart: LineChart): string {
  const { x: y, ticks } = axis(chart.lines.flatMap((line) => line.values.filter((value) => Number.isFinite(value))), PLOT_HEIGHT);
  const step = chart.points.length > 1 ? WIDTH / (chart.points.length - 1) : 0;
  const top = TOP + 5;
  const at = (index: number, value: number) => `${PLOT_LEFT + index * step},${top + PLOT_HEIGHT - Math.max(0, y(value))}`;
  const parts: string[] = [];
  for (const tick of ticks) {
    const level = top + PLOT_HEIGHT - y(tick);
    parts.push(`<line x1="${PLOT_LEFT}" y1="${level}" x2="${PLOT_LEFT + WIDTH}" y2="${level}" stroke="#ddd"/><text x="${PLOT_LEFT - 6}" y="${level + 4}" font-size="11" text-anchor="end">${label(tick)}</text>`);
  }
  chart.points.forEach((point, index) => {
    parts.push(`<text x="${PLOT_LEFT + index * step}" y="${top + PLOT_HEIGHT + 16}" font-size="11" text-anchor="middle">${escapeHtml(String(point))}</text>`);
  });
  parts.push(`<text x="${PLOT_LEFT + WIDTH / 2}" y="${top + PLOT_HEIGHT + 34}" font-size="12" text-anchor="middle">${escapeHtml(chart.xTitle)}</text>`);
  chart.lines.forEach((line, l) => {
    const color = COLORS[l % COLORS.length];
    // A gap (a missing value) ends one stretch of the line and starts another.
    const stretches: string[][] = [[]];
    line.values.forEach((value, index) => {
      if (Number.isFinite(value) && value > 0) stretches.at(-1)!.push(at(index, value));
      else if (stretches.at(-1)!.length > 0) stretches.push([]);
    });
    for (const stretch of stretches.filter((points) => points.length > 0)) {
      parts.push(`<polyline points="${stretch.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
      for (const point of stretch) parts.push(`<circle cx="${point.split(',')[0]}" cy="${point.split(',')[1]}" r="2.5" fill="${color}"/>`);
    }
  });
  return `${heading(chart.title, chart.unit, chart.lines.map((line) => line.name))}
<svg width="${PLOT_LEFT + WIDTH + 40}" height="${top + PLOT_HEIGHT + 44}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}
