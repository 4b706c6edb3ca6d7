// Bar charts as inline SVG (logarithmic scale when the values span more than a factor of 20, else
// linear from zero), for the HTML reports the benchmarks write: one group of bars per case, one
// bar per series.

export interface ChartGroup {
  label: string;
  /** Values by series name; a missing or non-finite value draws no bar. */
  values: Record<string, number>;
}

export interface Chart {
  title: string;
  unit: string;
  series: readonly string[];
  groups: readonly ChartGroup[];
}

const COLORS = ['#3b82f6', '#f97316', '#10b981', '#a855f7', '#ef4444', '#64748b'];
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const LEFT = 260;
const WIDTH = 560;
const BAR = 16;
const TOP = 10;

/** An axis: where a value falls (0 … WIDTH) and the ticks to draw. */
function axis(values: number[]): { x: (value: number) => number; ticks: number[] } {
  const positive = values.filter((value) => value > 0);
  const min = positive.length > 0 ? Math.min(...positive) : 1;
  const max = positive.length > 0 ? Math.max(...positive) : 1;
  if (max / min > 20) {
    const low = Math.pow(10, Math.floor(Math.log10(min)));
    const high = Math.pow(10, Math.ceil(Math.log10(max)));
    const ticks: number[] = [];
    for (let tick = low; tick <= high; tick *= 10) ticks.push(tick);
    return { x: (value) => (WIDTH * (Math.log10(value) - Math.log10(low))) / (Math.log10(high) - Math.log10(low)), ticks };
  }
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  const high = Math.ceil(max / step) * step;
  const ticks = Array.from({ length: Math.round(high / step) + 1 }, (_, i) => i * step);
  return { x: (value) => (WIDTH * value) / high, ticks };
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
  const legend = chart.series.length > 1 ? `<p>${chart.series.map((key, s) => `<span style="color:${COLORS[s % COLORS.length]}">■</span> ${escapeHtml(key)}`).join(' &nbsp; ')}</p>` : '';
  return `<h3>${escapeHtml(chart.title)} (${escapeHtml(chart.unit)})</h3>${legend}
<svg width="${LEFT + WIDTH + 80}" height="${height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}
