// Rendering benchmark: microseconds per message through the Markdown renderer, in process, for
// a short chat line and for a long message with code, math, a list and links.
import { performance } from 'node:perf_hooks';
import { renderMessage, type MentionResolver } from '../src/markdown/index.js';
import { percentile, printTable, writeResult, type Row } from './lib/stats.js';

interface RenderOptions {
  iterations: number;
  quick: boolean;
}

const resolver: MentionResolver = {
  user: (name) => (name.toLowerCase() === 'king hamlet' ? { id: 10, fullName: 'King Hamlet' } : undefined),
  group: () => undefined,
  channel: (name) => (name === 'Verona' ? { id: 3, name: 'Verona' } : undefined),
};

export const shortMessage = 'Hi @**King Hamlet**, the build is green again :tada: see #**Verona** for details';

export const longMessage = [
  '# Release notes',
  '',
  'We fixed **three** bugs and one *annoying* regression; details at https://example.com/notes/42 and [the tracker](https://example.com/issues?q=is:open).',
  '',
  '* parser: `parse()` no longer drops the last line',
  '* storage: writes are ~~slow~~ fast again',
  '  * nested: compaction runs in the background',
  '1. first',
  '2. second',
  '',
  '```python',
  'def fibonacci(n: int) -> int:',
  '    """The n-th Fibonacci number."""',
  '    a, b = 0, 1',
  '    for _ in range(n):',
  '        a, b = b, a + b',
  '    return a',
  '```',
  '',
  'The closed form is $$F_n = \\frac{\\varphi^n - \\psi^n}{\\sqrt 5}$$ for all $$n \\geq 0$$.',
  '',
  '```math',
  '\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}',
  '```',
  '',
  '> Quoted from @**King Hamlet**: "it works on my machine"',
  '',
  'Thanks everyone! 🎉',
].join('\n');

/** Microseconds per render: `rounds` batches of `iterations / rounds` renders each. */
function measure(content: string, iterations: number): number[] {
  for (let i = 0; i < Math.min(200, iterations); i++) renderMessage(content, resolver);
  const rounds = 10;
  const perRound = Math.max(1, Math.floor(iterations / rounds));
  const micros: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) renderMessage(content, resolver);
    micros.push(((performance.now() - start) * 1000) / perRound);
  }
  return micros;
}

export function runRender(options: RenderOptions): void {
  const rows: Row[] = [];
  for (const [name, content, iterations] of [
    ['short text', shortMessage, options.iterations],
    ['long with code and math', longMessage, Math.ceil(options.iterations / 10)],
  ] as const) {
    const micros = measure(content, iterations);
    rows.push({ message: name, chars: content.length, renders: iterations, 'p50 µs': percentile(micros, 50), 'p99 µs': percentile(micros, 99) });
  }
  printTable(`render: µs per message (in process; median and worst of 10 batches)`, rows);
  console.log(`results: ${writeResult(options.quick ? 'render-quick' : 'render', { options, rows })}`);
}
