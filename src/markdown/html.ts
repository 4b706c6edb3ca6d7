// HTML output as Zulip's server writes it: text escapes only &, < and > (quotes stay as typed),
// attributes escape quotes too, entities stay as written; and the helpers plugins use to emit
// raw HTML tokens.
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const replaceEntity = (char: string): string => entities[char]!;
export const escapeText = (text: string): string => (/[&<>]/.test(text) ? text.replace(/[&<>]/g, replaceEntity) : text);
export const escapeAttr = (text: string): string => (/[&<>"]/.test(text) ? text.replace(/[&<>"]/g, replaceEntity) : text);

/** Pushes finished HTML at the current inline position. */
export function pushHtml(state: StateInline, content: string): void {
  state.push('html_inline', '', 0).content = content;
}

/** Python's `\w`: Unicode letters and digits, and the underscore. */
export const isWordChar = (char: string | undefined): boolean => char !== undefined && (/^[a-zA-Z0-9_]$/.test(char) || /^[\p{L}\p{N}]$/u.test(char));

const entity = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);/y;

/** An entity is kept as written, as Zulip does (markdown-it would decode it to its character). */
function entityRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x26 /* & */) return false;
  entity.lastIndex = state.pos;
  const match = entity.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) pushHtml(state, match[0]);
  state.pos += match[0].length;
  return true;
}

export function htmlPlugin(md: MarkdownIt): void {
  md.inline.ruler.at('entity', entityRule);
  md.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  md.renderer.rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
}

/** Inside the text of a Markdown link, which Zulip leaves as written (markdown-it counts the
 * nesting in `linkLevel`, which its type declarations omit). */
export const inLinkText = (state: StateInline): boolean => (state as StateInline & { linkLevel: number }).linkLevel > 0;
