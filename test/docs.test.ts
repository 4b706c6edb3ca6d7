// The architecture page names every command of the realm actor, and only those: the table stays
// true as commands are added. The blocks docs/ has generated from the code (`npm run docs`) are
// what the code makes now.
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { regenerate } from '../src/cli/docBlocks.js';
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

test.run();
