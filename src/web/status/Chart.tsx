// A small line chart of one figure over the last samples, with its latest value.

interface Props {
  title: string;
  values: (number | null)[];
  format: (value: number | null) => string;
}

const WIDTH = 240;
const HEIGHT = 60;

export function Chart({ title, values, format }: Props) {
  const known = values.filter((value): value is number => value !== null && Number.isFinite(value));
  const top = Math.max(1, ...known);
  const step = values.length > 1 ? WIDTH / (values.length - 1) : WIDTH;
  const points = values
    .map((value, index) => (value === null || !Number.isFinite(value) ? null : `${(index * step).toFixed(1)},${(HEIGHT - (value / top) * (HEIGHT - 4) - 2).toFixed(1)}`))
    .filter((point) => point !== null)
    .join(' ');
  const latest = values.length > 0 ? values[values.length - 1]! : null;
  return (
    <figure class="chart">
      <figcaption>
        {title}: <strong>{format(latest)}</strong>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT} role="img" aria-label={`${title} over the last ${values.length} samples, highest ${format(known.length > 0 ? top : null)}`}>
        <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
      </svg>
    </figure>
  );
}
