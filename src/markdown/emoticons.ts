// Emoticons (`:)`, `<3`, …) become emoji for users with translate_emoticons on, when they stand
// apart from words: between spaces or punctuation, as in Zulip.
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import { emojiByCode } from '../emoji/catalog.js';
import { emojiHtml } from './emoji.js';
import { envOf } from './env.js';
import { htmlToken, replaceMatches, rewriteText } from './textRuns.js';

// Zulip's documented translations (help center, "Emoticon translations"), by code point.
const translations = new Map([
  [':)', '1f642'],
  ['(:', '1f642'],
  [':(', '1f641'],
  ['<3', '2764'],
  [':|', '1f611'],
  [':/', '1f615'],
]);
const boundary = String.raw`[,.;?!()[\] "'\n\t]`;
const alternatives = [...translations.keys()].map((emoticon) => emoticon.replace(/[()|/]/g, '\\$&')).join('|');
const emoticon = new RegExp(`(?<=^|${boundary})(${alternatives})(?=$|${boundary})`, 'g');

function emoticonRule(state: StateCore): void {
  if (!envOf(state).translateEmoticons) return;
  rewriteText(state, (text) =>
    replaceMatches(text, emoticon, (match) => {
      const emoji = emojiByCode(translations.get(match)!)!;
      return htmlToken(state, emojiHtml(emoji.names[0]!, emoji.code));
    }),
  );
}

export function emoticonsPlugin(md: MarkdownIt): void {
  md.core.ruler.after('zulip_linkifiers', 'zulip_emoticons', emoticonRule);
}
