// Emoji: `:name:` from the server's catalogue (`:zulip:` as Zulip's image), and emoji typed as
// Unicode characters, ZWJ sequences included when the catalogue knows them (else they stay text).
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import { emojiByCode, emojiByName } from '../emoji/catalog.js';
import { escapeAttr, escapeText, inLinkText, pushHtml } from './html.js';
import { htmlToken, replaceMatches, rewriteText } from './textRuns.js';

/** Zulip's emoji span; the title is the name with spaces for underscores. */
export function emojiHtml(name: string, code: string): string {
  const title = escapeAttr(name.replace(/_/g, ' '));
  return `<span aria-label="${title}" class="emoji emoji-${code}" role="img" title="${title}">:${escapeText(name)}:</span>`;
}

const zulipEmoji = '<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip">';
const named = /:([\p{L}\p{N}_+-]+):/uy;

function namedRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */ || inLinkText(state)) return false;
  named.lastIndex = state.pos;
  const match = named.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    const name = match[1]!;
    const emoji = emojiByName(name);
    // An unknown name is consumed as text, so its closing colon cannot open another.
    if (name === 'zulip') pushHtml(state, zulipEmoji);
    else if (emoji) pushHtml(state, emojiHtml(name, emoji.code));
    else state.pending += match[0];
  }
  state.pos += match[0].length;
  return true;
}

// Unicode's emoji sequence grammar (UTS #51): flags, or an emoji with its modifier, presentation
// selector or tag sequence, joined by ZWJs.
const single = String.raw`\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?`;
const possibleEmoji = new RegExp(String.raw`\p{RI}\p{RI}|${single}(?:\u200D(?:\p{RI}\p{RI}|${single}))*`, 'gu');
// A lone character that is text unless asked to be an emoji (digits, #, arrows).
const textPresentation = /^\P{Emoji_Presentation}\u20E3?$/u;
const hasEmoji = /[\u00a9\u00ae\u203c-\u3299\u{1f000}-\u{1faff}]/u;

function codeOf(sequence: string): string {
  return [...sequence.replace(/\uFE0F/g, '')].map((char) => char.codePointAt(0)!.toString(16).padStart(4, '0')).join('-');
}

function unicodeRule(state: StateCore): void {
  if (!hasEmoji.test(state.src)) return;
  rewriteText(state, (text) => {
    if (!hasEmoji.test(text)) return undefined;
    return replaceMatches(text, possibleEmoji, (sequence) => {
      const emoji = textPresentation.test(sequence) ? undefined : emojiByCode(codeOf(sequence));
      return emoji && htmlToken(state, emojiHtml(emoji.names[0]!, emoji.code));
    });
  });
}

export function emojiPlugin(md: MarkdownIt): void {
  md.inline.ruler.push('zulip_emoji', namedRule);
  md.core.ruler.push('zulip_unicode_emoji', unicodeRule);
}
