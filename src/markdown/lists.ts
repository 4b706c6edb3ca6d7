// Zulip's lists: `*`, `-` and `+` items form one bulleted list, `1.` items an ordered one; an
// item nests under the previous one when indented by two spaces (ordered lists too, keeping their
// start number); a list may follow a paragraph line directly.
import type MarkdownIt from 'markdown-it';
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs';
import type Token from 'markdown-it/lib/token.mjs';

interface Marker {
  ordered: boolean;
  number: number;
  /** Offset of the item's text in the source. */
  contentStart: number;
  /** Column of the item's text. */
  contentColumn: number;
}

const ITEM = /^(?:[*+-]|(\d{1,9})\.)[ \t]+/;

function markerAt(state: StateBlock, line: number): Marker | undefined {
  const start = state.bMarks[line]! + state.tShift[line]!;
  const match = ITEM.exec(state.src.slice(start, state.eMarks[line]));
  if (!match) return undefined;
  return {
    ordered: match[1] !== undefined,
    number: Number(match[1] ?? 1),
    contentStart: start + match[0].length,
    contentColumn: state.sCount[line]! + match[0].length,
  };
}

function markTight(state: StateBlock, from: number, level: number): void {
  for (const token of state.tokens.slice(from)) {
    if (token.level === level && (token.type === 'paragraph_open' || token.type === 'paragraph_close')) token.hidden = true;
  }
}

/** Python-Markdown keeps the lines that continue an item's first line as written (indented). */
function keepContinuationLines(state: StateBlock, inline: Token | undefined, line: number): void {
  if (inline?.type !== 'inline' || inline.map?.[0] !== line || inline.map[1] - line < 2) return;
  const lines = [inline.content.split('\n')[0]];
  for (let next = line + 1; next < inline.map[1]; next++) lines.push(state.src.slice(state.bMarks[next], state.eMarks[next]));
  inline.content = lines.join('\n');
}

function listRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  // A list starts at most one space in; deeper is a nested list (inside an item) or code.
  if (state.sCount[startLine]! - state.blkIndent > 1) return false;
  const first = markerAt(state, startLine);
  if (!first) return false;
  if (silent && state.parentType === 'paragraph') {
    // A bullet or a one-digit item interrupts a paragraph (Zulip inserts a blank line before it);
    // inside a list every item line starts an item.
    return !first.ordered || first.number < 10 || state.listIndent !== -1;
  }
  if (silent) return true;

  const container = { indent: state.blkIndent, tight: state.tight, parentType: state.parentType, listIndent: state.listIndent };
  const listColumn = state.sCount[startLine]!;
  const open = state.push(first.ordered ? 'ordered_list_open' : 'bullet_list_open', first.ordered ? 'ol' : 'ul', 1);
  if (first.ordered && first.number !== 1) open.attrs = [['start', String(first.number)]];
  const tokenIndex = state.tokens.length;
  const listLines: [number, number] = [startLine, startLine];
  open.map = listLines;
  state.parentType = 'list';
  let line = startLine;
  let tight = true;
  let emptyBefore = false;
  for (let item: Marker | undefined = first; item; ) {
    const markerColumn = state.sCount[line]!;
    const itemLines: [number, number] = [line, line];
    state.push('list_item_open', 'li', 1).map = itemLines;
    const itemStart = state.tokens.length;
    const saved = [state.tShift[line]!, state.sCount[line]!] as const;
    state.tShift[line] = item.contentStart - state.bMarks[line]!;
    state.sCount[line] = item.contentColumn;
    state.blkIndent = markerColumn + 2;
    state.listIndent = markerColumn;
    state.tight = true;
    state.md.block.tokenize(state, line, endLine);
    if (!state.tight || emptyBefore) tight = false;
    emptyBefore = state.line - line > 1 && state.isEmpty(state.line - 1);
    [state.tShift[line], state.sCount[line]] = saved;
    keepContinuationLines(state, state.tokens[itemStart + 1], line);
    state.blkIndent = container.indent;
    state.push('list_item_close', 'li', -1);
    line = itemLines[1] = state.line;
    if (line >= endLine || state.sCount[line]! < container.indent || state.sCount[line]! >= listColumn + 2) break;
    item = markerAt(state, line);
    if (item?.ordered !== first.ordered) break;
  }
  state.push(first.ordered ? 'ordered_list_close' : 'bullet_list_close', first.ordered ? 'ol' : 'ul', -1);
  listLines[1] = line;
  state.line = line;
  if (tight) markTight(state, tokenIndex, state.level + 2);
  Object.assign(state, { tight: container.tight, parentType: container.parentType, listIndent: container.listIndent });
  return true;
}

export function listsPlugin(md: MarkdownIt): void {
  md.block.ruler.at('list', listRule, { alt: ['paragraph', 'reference', 'blockquote'] });
  // Python-Markdown writes a nested list right after the item's text, not on a line of its own.
  for (const type of ['bullet_list_open', 'ordered_list_open']) {
    md.renderer.rules[type] = (tokens, idx, _options, _env, self) => `<${tokens[idx]!.tag}${self.renderAttrs(tokens[idx]!)}>\n`;
  }
}
