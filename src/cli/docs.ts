// `npm run docs`: writes the generated blocks of every page in docs/ (see docBlocks.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { regenerate } from './docBlocks.js';

const docs = new URL('../../../docs/', import.meta.url);
for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
  const file = new URL(name, docs);
  const page = readFileSync(file, 'utf8');
  const made = regenerate(page);
  if (made !== page) {
    writeFileSync(file, made);
    console.log(`docs/${name}: regenerated`);
  }
}
