// Documentation that cannot drift: the architecture page names every command of the realm actor,
// and only those; the blocks docs/ has generated from the code (`npm run docs`) are what the code
// makes now (the API tables from the route table, the benchmark results from bench/results);
// every relative link and anchor resolves; the configuration page lists exactly the settings
// src/ reads, each with default, meaning and example; the README's quick start runs scripts
// package.json defines, and its count of integrations is the registry's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { regenerate } from '../src/cli/docBlocks.js';
import { integrations } from '../src/integrations/index.js';
import { commands } from '../src/realm/commands/index.js';

test('docs/ARCHITECTURE.md lists every command with its mode, and no other', () => {
  const page = readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8');
  const table = page.slice(page.indexOf('| Area | Instant | Read | Live | Write |'), page.indexOf('(`test/docs.test.ts`'));
  const listed = new Map<string, string>();
  for (const row of table.split('\n').slice(2)) {
    const [, , instant = '', read = '', live = '', write = ''] = row.split('|');
    for (const [mode, cell] of [['instant', instant], ['read', read], ['live', live], ['write', write]] as const) for (const [, name] of cell.matchAll(/`([a-zA-Z]+\.[a-zA-Z]+)`/g)) listed.set(name!, mode);
  }
  const actual = new Map(Object.entries(commands).map(([name, def]) => [name, def.mode]));
  assert.equal([...listed].sort(), [...actual].sort());
});

test("docs/ pages' generated blocks match the code (npm run docs writes them)", () => {
  const docs = new URL('../../docs/', import.meta.url);
  let blocks = 0;
  for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
    const page = readFileSync(new URL(name, docs), 'utf8');
    blocks += [...page.matchAll(/<!-- generated:/g)].length;
    assert.fixture(page, regenerate(page), `docs/${name} is out of date: run npm run docs`);
  }
  assert.ok(blocks > 0, 'some page has a generated block');
});

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const pages = ['README.md', 'CHANGELOG.md', ...readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

/** A page's text without its fenced code (links and headings there are not Markdown's). */
const prose = (page: string): string => page.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as dashes,
 * repeats numbered. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(page).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const text = heading!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

test('every relative link and anchor of README.md, CHANGELOG.md and docs/ resolves', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const [, target] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      checked++;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), path));
      if (!existsSync(join(root, file))) broken.push(`${page}: ${target} (no ${file})`);
      else if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  assert.equal(broken, []);
  assert.ok(checked > 20, `${checked} links checked`);
});

/** Every .ts file under a directory of the repository. */
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));

/** The PARLEY_* variables a text reads: `env.PARLEY_X` (process.env or a passed env) or through
 * src/config.ts's helpers, `intSetting(env, 'PARLEY_X', …)`. Names in comments, messages and the
 * environment the CLI gives child processes are not reads. */
const settingsRead = (text: string): string[] => [...text.matchAll(/\benv\.(PARLEY_[A-Z0-9_]+)|\(env, '(PARLEY_[A-Z0-9_]+)'/g)].map((match) => (match[1] ?? match[2])!);

test('docs/configuration.md lists every PARLEY_* setting src/ reads, each with default, meaning and example, and no other', () => {
  const readInSrc = [...new Set(sources('src').flatMap((file) => settingsRead(read(file))))].sort();
  assert.ok(readInSrc.length > 40, `${readInSrc.length} settings found in src/`);
  const rows = read('docs/configuration.md').split('\n').filter((line) => line.startsWith('| `PARLEY_'));
  const documented: string[] = [];
  for (const row of rows) {
    const cells = row.split(/(?<!\\)\|/).slice(1, -1).map((text) => text.trim());
    assert.is(cells.length, 4, `a row of variable, default, meaning and example: ${row}`);
    assert.ok(cells.every((text) => text !== ''), `an empty cell: ${row}`);
    documented.push(...(cells[0]!.match(/PARLEY_[A-Z0-9_]+/g) ?? []));
  }
  assert.equal([...new Set(documented)].sort(), readInSrc);
});

test("the README's quick start is two commands, each an npm script package.json defines", () => {
  const readme = read('README.md');
  const block = readme.slice(readme.indexOf('## Quick start')).match(/```sh\n([\s\S]*?)```/)![1]!;
  const commands = block.trim().split('\n').map((line) => line.replace(/#.*$/, '').trim());
  assert.is(commands.length, 2);
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  for (const command of commands) {
    for (const step of command.split('&&').map((part) => part.trim())) {
      const [, run] = step.match(/^npm (?:run )?(\S+)$/) ?? [];
      assert.ok(run !== undefined, `not an npm command: ${step}`);
      // npm ci is npm's own; the others are the project's scripts.
      assert.ok(run === 'ci' || Object.hasOwn(scripts, run!), `package.json has no script "${run}"`);
    }
  }
});

test("the README's count of incoming-webhook integrations is the registry's", () => {
  const counted = read('README.md').match(/\| (\d+) integrations \(/);
  assert.ok(counted, 'the README names a number of integrations');
  assert.is(Number(counted[1]), integrations.size);
});

test.run();
