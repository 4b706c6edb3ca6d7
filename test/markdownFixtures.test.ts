// Zulip's own Markdown fixtures (test/reference/zulip-markdown-test-cases.json, described in the
// .md beside it) rendered through POST /messages/render for the realm at http://zulip.testserver
// and compared byte for byte. The cases that still differ are listed below with the reason; the
// test fails when any other case differs, and when a listed case no longer does.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
}

interface Fixtures {
  regular_tests: RegularCase[];
  linkify_tests: [input: string, expected: string, url: string][];
}

interface Case {
  name: string;
  input: string;
  expected: string;
  translateEmoticons: boolean;
}

const fixtures = JSON.parse(readFileSync(new URL('../../test/reference/zulip-markdown-test-cases.json', import.meta.url), 'utf8')) as Fixtures;

/** A linkify case's %s is the link the URL becomes (the .md's rule). */
function linkifyCase([input, expected, url]: Fixtures['linkify_tests'][number]): Case {
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return { name: `linkify ${JSON.stringify(input)}`, input, expected: expected.replace('%s', `<a href="${href}">${url}</a>`), translateEmoticons: false };
}

const cases: Case[] = [
  ...fixtures.regular_tests.map((test) => ({ name: test.name, input: test.input, expected: test.expected_output, translateEmoticons: test.translate_emoticons ?? false })),
  ...fixtures.linkify_tests.map(linkifyCase),
];

// Zulip names emoji from its own curated table, which no package carries; Parley uses iamcal's
// names (emoji-datasource). These cases differ only in those names.
const curated = "Zulip's curated emoji name";
const knownDifferences = new Map<string, string>([
  ['star_emoji', `${curated}: :smile: is 🙂 in Zulip, 😄 in iamcal's data`],
  ['many_emoji', `${curated}: :smile: is 🙂 in Zulip, 😄 in iamcal's data`],
  ['emoji_alongside_punctuation', `${curated}: :smile: is 🙂 in Zulip, 😄 in iamcal's data`],
  ['valid_emoji_preceded_by_invalid_emoji', `${curated}: :smile: is 🙂 in Zulip, 😄 in iamcal's data`],
  ['spoilers_with_header_markdown', `${curated}: :smile: is 🙂 in Zulip, 😄 in iamcal's data`],
  ['emojis_without_space', `${curated}: :cat:, :dog:, :rabbit: are the whole animals in Zulip, the faces in iamcal's data`],
  ['emojis_newline', `${curated}: :cat: and :dog: are the whole animals in Zulip, the faces in iamcal's data`],
  ['translate_emoticons_enabled', `${curated}: 🙂 is :smile: in Zulip, :slightly_smiling_face: in iamcal's data`],
  ['translate_emoticons', `${curated}: :smile:, :frown: (Zulip) are :slightly_smiling_face:, :slightly_frowning_face: (iamcal), and :smile: is 😄 there`],
  ['translate_emoticons_newline', `${curated}: 🙂 is :smile: in Zulip, :slightly_smiling_face: in iamcal's data`],
  ['translate_emoticons_at_sentence_end', `${curated}: 🙂 is :smile: in Zulip, :slightly_smiling_face: in iamcal's data`],
  ['translate_emoticons_between_symbols', `${curated}: 🙂 is :smile: in Zulip, :slightly_smiling_face: in iamcal's data`],
  ['emoji_sequence_one', `${curated}: :woman_shrugging: in Zulip, :woman-shrugging: in iamcal's data`],
  ['emoji_sequence_two', `${curated}: :eye_in_speech_bubble: in Zulip, :eye-in-speech-bubble: in iamcal's data`],
  ['unicode_emoji', `${curated}: 💩 is :poop: in Zulip, :hankey: first in iamcal's data`],
  ['two_unicode_emoji', `${curated}: 💩 is :poop: in Zulip, :hankey: first in iamcal's data`],
  ['two_unicode_emoji_separated_by_text', `${curated}: 💩 is :poop: in Zulip, :hankey: first in iamcal's data`],
  ['miscellaneous_symbols_and_pictographs', `${curated}: 🎄 is :holiday_tree: in Zulip, :christmas_tree: in iamcal's data`],
  ['miscellaneous_and_dingbats_emoji', `${curated}: ➗ is :division: in Zulip, :heavy_division_sign: in iamcal's data`],
  ['supplemental_symbols_and_pictographs', `${curated}: 🤖 is :robot: in Zulip, :robot_face: in iamcal's data`],
  ['miscellaneous_symbols_and_arrows', `${curated}: ⬆️ is :up: in Zulip, :arrow_up: in iamcal's data`],
  ['new_emoji_test', `${curated}: :kiwi: and :gold: are Zulip's names (iamcal: :kiwifruit:, :first_place_medal:)`],
  ['fried_egg_emoji_nonexistent', `${curated}: Zulip calls 🍳 :cooking: only; iamcal also :fried_egg:`],
  ['emojis_with_zwj_are_banned', `${curated}: Zulip's table has no :man-girl-girl:; iamcal's does`],
]);

const fixturesSuite = suite<{ server: TestServer }>('Zulip markdown fixtures');

fixturesSuite.before(async (context) => {
  context.server = await startTestServer({ externalHost: 'zulip.testserver' });
});
fixturesSuite.after(async ({ server }) => server.stop());

fixturesSuite('every fixture renders as Zulip renders it, apart from the listed differences', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const failed = new Map<string, { expected: string; rendered: string }>();
  for (const test of cases) {
    if (test.translateEmoticons) assert.is((await hamlet.patch('/settings', { translate_emoticons: true })).status, 200);
    const response = await hamlet.post('/messages/render', { content: test.input });
    if (test.translateEmoticons) await hamlet.patch('/settings', { translate_emoticons: false });
    assert.is(response.status, 200, `${test.name}: ${JSON.stringify(response.body)}`);
    assertMatchesReference('POST /messages/render', response.body);
    const rendered = String(response.body.rendered);
    if (rendered !== test.expected) failed.set(test.name, { expected: test.expected, rendered });
  }
  const curatedOnly = [...knownDifferences.values()].filter((reason) => reason.startsWith(curated)).length;
  const passed = cases.length - failed.size;
  const percent = (count: number, total: number): string => `${((100 * count) / total).toFixed(1)} %`;
  console.log(`\n  Zulip fixtures: ${passed} / ${cases.length} byte for byte (${percent(passed, cases.length)}); ` + `without the ${curatedOnly} curated-name cases: ${passed} / ${cases.length - curatedOnly} (${percent(passed, cases.length - curatedOnly)})`);
  const unexpected = [...failed].filter(([name]) => !knownDifferences.has(name));
  assert.equal(unexpected.map(([name, { expected, rendered }]) => `${name}\n  expected ${JSON.stringify(expected)}\n  rendered ${JSON.stringify(rendered)}`), [], 'cases that differ from Zulip');
  const nowPassing = [...knownDifferences.keys()].filter((name) => !failed.has(name));
  assert.equal(nowPassing, [], 'listed as differing, but now rendered as Zulip does: remove them from knownDifferences');
});

fixturesSuite('POST /messages/render needs credentials and content', async ({ server }) => {
  assert.is((await server.anonymous.post('/messages/render', { content: 'hi' })).status, 401);
  const hamlet = await server.as('hamlet@zulip.com');
  assert.is((await hamlet.post('/messages/render', {})).status, 400);
});

fixturesSuite.run();
