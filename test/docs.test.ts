// The architecture page names every command of the realm actor, and only those: the table stays
// true as commands are added.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();
