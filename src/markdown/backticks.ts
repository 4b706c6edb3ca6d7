// Inline code as Zulip writes it: the text between equal runs of backticks on one line, kept
// exactly (no trimming of the spaces inside, unlike CommonMark).
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';

function backtickRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x60 /* ` */ || src[pos - 1] === '\\') return false;
  let end = pos;
  while (src.charCodeAt(end) === 0x60) end++;
  const run = end - pos;
  const lineEnd = Math.min(state.posMax, src.includes('\n', end) ? src.indexOf('\n', end) : src.length);
  for (let close = src.indexOf('`'.repeat(run), end + 1); close !== -1 && close + run <= lineEnd; close = src.indexOf('`'.repeat(run), close + 1)) {
    // The closing run must be exactly as long as the opening one.
    if (src.charCodeAt(close - 1) === 0x60 || src.charCodeAt(close + run) === 0x60) continue;
    if (!silent) {
      const token = state.push('code_inline', 'code', 0);
      token.markup = '`'.repeat(run);
      token.content = src.slice(end, close);
    }
    state.pos = close + run;
    return true;
  }
  if (!silent) state.pending += src.slice(pos, end);
  state.pos = end;
  return true;
}

export function backticksPlugin(md: MarkdownIt): void {
  md.inline.ruler.at('backticks', backtickRule);
}
