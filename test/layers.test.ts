// The layer order of docs/development.md ("Layers") holds: every import in src/ points to its own layer or an
// earlier one, and no file imports itself back through others.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../', import.meta.url).pathname;
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Each file's relative imports, as the files they name. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/from '(\.[^']+)'/g)].map((match) => normalize(join(dirname(file), match[1]!)).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** The numbered layer list of docs/development.md: each top-level name of src/ (a directory or a file) → its rank. */
function layerOf(): Map<string, number> {
  const page = readFileSync(join(root, 'docs/development.md'), 'utf8');
  const block = /<!-- layers -->([^]*?)<!-- \/layers -->/.exec(page);
  assert.ok(block, 'docs/development.md has the layer list');
  const ranks = new Map<string, number>();
  for (const [index, line] of block![1]!.trim().split('\n').entries()) {
    for (const [, name] of line.split(' — ')[0]!.matchAll(/`([^`]+)`/g)) ranks.set(name!.replace(/\/$/, ''), index);
  }
  return ranks;
}

const topLevel = (file: string): string => relative(src, file).split('/')[0]!;

test('every module of src/ is in a layer of docs/development.md', () => {
  const ranks = layerOf();
  const unplaced = [...new Set(sourceFiles(src).map(topLevel))].filter((name) => !ranks.has(name));
  assert.equal(unplaced, []);
});

test('no import points to a later layer', () => {
  const ranks = layerOf();
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    for (const target of targets) if (ranks.get(topLevel(target))! > ranks.get(topLevel(file))!) upward.push(`${relative(src, file)} → ${relative(src, target)}`);
  }
  assert.equal(upward, []);
});

test('no import cycle between files', () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].map((entry) => relative(src, entry)).join(' → '));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.equal(cycles, []);
});

test.run();
