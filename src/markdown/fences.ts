// Fenced blocks, resolved line by line before block parsing as Zulip does: ```quote (and ~~~),
// ```spoiler header, ```math and code fences, nested in quotes and spoilers. Code, math and the
// spoiler's frame become HTML stashed behind placeholder lines; quotes become `> ` lines.
import type MarkdownIt from 'markdown-it';
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import { formatCode } from './code.js';
import { envOf } from './env.js';
import { formatMath } from './math.js';

// A fence opens at the start of a line: three or more ` or ~, an optional language (`.py`,
// `{python}`), and after it an optional header (spoilers).
const FENCE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;
const PLACEHOLDER = /^\u0002(\d+)\u0003$/;

interface Block {
  kind: 'code' | 'quote' | 'spoiler' | 'math';
  fence: string;
  lang: string | undefined;
  header: string | undefined;
  lines: string[];
  /** Where the finished block goes: the document, or the quote or spoiler around it. */
  into: string[];
}

function preprocess(source: string, stash: string[]): string {
  const placeholder = (html: string): string => `\u0002${stash.push(html) - 1}\u0003`;
  const output: string[] = [];
  const open: Block[] = [];

  const startOrAppend = (line: string, into: string[]): void => {
    const match = FENCE.exec(line);
    if (!match) {
      into.push(line);
      return;
    }
    const lang = match[2]?.toLowerCase();
    const kind = lang === 'quote' || lang === 'quoted' ? 'quote' : lang === 'spoiler' || lang === 'math' ? lang : 'code';
    open.push({ kind, fence: match[1]!, lang, header: match[3], lines: [], into });
  };

  const close = (block: Block): void => {
    open.pop();
    if (block.lines.length === 0) return;
    const text = block.lines.join('\n');
    let result: string;
    if (block.kind === 'code') result = placeholder(formatCode(block.lang, text));
    else if (block.kind === 'math') result = placeholder(formatMath(text));
    else if (block.kind === 'quote') result = block.lines.map((line) => `> ${line}`).join('\n');
    else {
      const parts = [placeholder('<div class="spoiler-block"><div class="spoiler-header">'), ...(block.header === undefined ? [] : [block.header])];
      result = [...parts, placeholder('</div><div class="spoiler-content" aria-hidden="true">'), text, placeholder('</div></div>')].join('\n\n');
    }
    block.into.push('', ...result.split('\n'), '');
  };

  for (const line of source.split('\n')) {
    const block = open.at(-1);
    if (!block) startOrAppend(line, output);
    else if (line.trimEnd() === block.fence) close(block);
    // Quotes and spoilers hold Markdown, fences included; code and math hold text.
    else if (block.kind === 'quote' || block.kind === 'spoiler') startOrAppend(line, block.lines);
    else block.lines.push(line.trimEnd());
  }
  // Blocks left open run to the end of the message.
  for (let block = open.at(-1); block; block = open.at(-1)) close(block);
  return output.join('\n');
}

function fenceRule(state: StateCore): void {
  // Placeholder characters in the text itself would reach stashed HTML.
  const source = state.src.replace(/[\u0002\u0003]/g, '');
  if (!source.includes('```') && !source.includes('~~~')) {
    state.src = source;
    return;
  }
  state.src = preprocess(source, (envOf(state).stash ??= []));
}

/** A placeholder line: its stashed HTML, as a block (a div) or inside a paragraph (math). */
function placeholderRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const start = state.bMarks[startLine]! + state.tShift[startLine]!;
  if (state.src.charCodeAt(start) !== 0x02) return false;
  const match = PLACEHOLDER.exec(state.src.slice(start, state.eMarks[startLine]));
  const html = match && envOf(state).stash?.[Number(match[1])];
  if (html === undefined || html === null) return false;
  if (silent) return true;
  const token = state.push('html_block', '', 0);
  token.content = html.startsWith('<div') || html.startsWith('</div') ? `${html}\n` : `<p>${html}</p>\n`;
  token.map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

export function fencesPlugin(md: MarkdownIt): void {
  md.core.ruler.after('normalize', 'zulip_fences', fenceRule);
  md.block.ruler.before('code', 'zulip_placeholder', placeholderRule);
  md.disable('fence');
}
