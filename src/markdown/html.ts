// HTML output as Zulip's server writes it: text escapes only &, < and > (quotes stay as typed),
// attributes escape quotes too; and the helpers plugins use to emit raw HTML tokens.
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

export function htmlPlugin(md: MarkdownIt): void {
  md.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  md.renderer.rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
}

/** Inside the text of a Markdown link, which Zulip leaves as written (markdown-it counts the
 * nesting in `linkLevel`, which its type declarations omit). */
export const inLinkText = (state: StateInline): boolean => (state as StateInline & { linkLevel: number }).linkLevel > 0;
