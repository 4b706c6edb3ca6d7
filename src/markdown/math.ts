// Math through KaTeX, as Zulip's server renders it: `$$…$$` inline, and the display blocks of
// ```math fences (fences.ts); TeX that KaTeX refuses shows as a `tex-error` span.
import katex from 'katex';
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import { escapeText, isWordChar, pushHtml } from './html.js';

/** KaTeX's HTML, or undefined when the TeX does not parse. */
function renderTex(tex: string, display: boolean): string | undefined {
  try {
    return katex.renderToString(tex, { displayMode: display, throwOnError: true, strict: 'ignore' });
  } catch {
    return undefined;
  }
}

// Django's escape, which Zulip applies to a display block it could not render.
const escapeDjango = (text: string): string => escapeText(text).replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

/** A ```math block: each paragraph a display formula. */
export function formatMath(text: string): string {
  return text
    .split('\n\n')
    .map((paragraph) => renderTex(paragraph, true) ?? `<span class="tex-error">${escapeDjango(paragraph)}</span>`)
    .join('\n\n');
}

// The body may not start with `_` (so `$$_$$` is money), nor span lines; `\$` is a dollar inside.
const inlineTex = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$/y;

function texRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x24 /* $ */ || src.charCodeAt(pos + 1) !== 0x24) return false;
  // Between non-word characters on both sides, and not inside a longer run of dollars.
  if (pos > 0 && (src[pos - 1] === '$' || isWordChar(src[pos - 1]))) return false;
  inlineTex.lastIndex = pos;
  const match = inlineTex.exec(src);
  if (!match || match.index + match[0].length > state.posMax) return false;
  const after = src[pos + match[0].length];
  if (after === '$' || isWordChar(after)) return false;
  if (!silent) pushHtml(state, renderTex(match[1]!, false) ?? `<span class="tex-error">${escapeText(match[0])}</span>`);
  state.pos += match[0].length;
  return true;
}

export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_tex', texRule);
}
