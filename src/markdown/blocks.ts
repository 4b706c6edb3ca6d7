// Zulip's paragraphs, line breaks and quotes: every newline is a <br> and keeps the spaces
// around it; a paragraph keeps its trailing spaces; a quote of nothing but `>` is plain text.
// No setext headings, reference definitions or raw HTML blocks.
import type MarkdownIt from 'markdown-it';
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';

function paragraphRule(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminators = state.md.block.ruler.getRules('paragraph');
  const parentType = state.parentType;
  state.parentType = 'paragraph';
  let nextLine = startLine + 1;
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    // Indented and lazy lines continue the paragraph; other blocks may interrupt it.
    if (state.sCount[nextLine]! - state.blkIndent > 3 || state.sCount[nextLine]! < 0) continue;
    if (terminators.some((rule) => rule(state, nextLine, endLine, true))) break;
  }
  const content = state.getLines(startLine, nextLine, state.blkIndent, false).trimStart();
  state.line = nextLine;
  state.push('paragraph_open', 'p', 1).map = [startLine, state.line];
  const inline = state.push('inline', '', 0);
  Object.assign(inline, { content, map: [startLine, state.line], children: [] });
  state.push('paragraph_close', 'p', -1);
  state.parentType = parentType;
  return true;
}

function newlineRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) state.push('softbreak', 'br', 0);
  state.pos++;
  return true;
}

const emptyQuoteLine = /^ {0,3}>\s*$/;
const quoteMarker = /^ {0,3}> ?/;

/** Python-Markdown's quote: every line up to the next blank line, `>` removed where there is one;
 * it needs a line with something after its `>` (a lone `>` is text). */
function quoteRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent > 3) return false;
  const lineText = (line: number): string => state.src.slice(state.bMarks[line]! + state.tShift[line]! - Math.min(state.tShift[line]!, 3), state.eMarks[line]);
  if (!quoteMarker.test(lineText(startLine))) return false;
  let end = startLine;
  let content = false;
  for (; end < endLine && !state.isEmpty(end) && state.sCount[end]! >= state.blkIndent; end++) content ||= !emptyQuoteLine.test(lineText(end));
  if (!content) return false;
  if (silent) return true;
  const saved = { bMarks: state.bMarks.slice(startLine, end), tShift: state.tShift.slice(startLine, end), sCount: state.sCount.slice(startLine, end) };
  const outer = { blkIndent: state.blkIndent, parentType: state.parentType, lineMax: state.lineMax };
  for (let line = startLine; line < end; line++) {
    const marker = quoteMarker.exec(lineText(line));
    if (!marker) continue;
    state.bMarks[line] = state.bMarks[line]! + state.tShift[line]! - Math.min(state.tShift[line]!, 3) + marker[0].length;
    const indent = /^ */.exec(state.src.slice(state.bMarks[line], state.eMarks[line]))![0].length;
    state.tShift[line] = indent;
    state.sCount[line] = indent;
  }
  state.push('blockquote_open', 'blockquote', 1).map = [startLine, end];
  Object.assign(state, { blkIndent: 0, parentType: 'blockquote', lineMax: end });
  state.md.block.tokenize(state, startLine, end);
  state.push('blockquote_close', 'blockquote', -1);
  Object.assign(state, outer);
  state.bMarks.splice(startLine, end - startLine, ...saved.bMarks);
  state.tShift.splice(startLine, end - startLine, ...saved.tShift);
  state.sCount.splice(startLine, end - startLine, ...saved.sCount);
  state.line = end;
  return true;
}

export function blocksPlugin(md: MarkdownIt): void {
  md.disable(['lheading', 'reference', 'html_block', 'html_inline', 'escape', 'autolink', 'linkify']);
  md.block.ruler.at('paragraph', paragraphRule);
  md.block.ruler.at('blockquote', quoteRule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.inline.ruler.at('newline', newlineRule);
}
