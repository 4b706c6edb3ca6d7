// The emoji catalogue: names and codes from emoji-datasource, Zulip's code format (no U+FE0F),
// and the code → names table clients are served.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codeToNames, emojiByCode, emojiByName } from '../src/emoji/catalog.js';

test('names resolve to codes without variation selectors; qualified codes find the same emoji', () => {
  assert.is(emojiByName('heart')?.code, '2764');
  assert.is(emojiByName('hash')?.code, '0023-20e3');
  assert.is(emojiByCode('2764-fe0f'), emojiByName('heart'));
  assert.is(emojiByName('skin-tone-2'), undefined, 'skin tones are not emoji of their own');
  assert.is(emojiByCode('1f426-200d-1f525'), undefined, 'newer than Emoji 15.0');
});

test('code_to_names lists every emoji once, by its code, canonical name first', () => {
  const table = codeToNames();
  assert.equal(table['1f4a9'], ['hankey', 'poop', 'shit']);
  for (const [code, names] of Object.entries(table)) assert.is(emojiByName(names[0]!)?.code, code);
});

test.run();
