// Rewriting plain text after inline parsing, for the syntax Zulip applies last (linkifiers,
// emoticons, Unicode emoji): only text outside links and code is touched.
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type Token from 'markdown-it/lib/token.mjs';

/** What a text becomes: strings stay text, tokens are inserted as they are. */
export type Pieces = (string | Token)[];

export function rewriteText(state: StateCore, split: (text: string) => Pieces | undefined): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    let insideLink = 0;
    let changed = false;
    for (const token of block.children) {
      if (token.type === 'link_open') insideLink++;
      if (token.type === 'link_close') insideLink--;
      const pieces = token.type === 'text' && insideLink === 0 ? split(token.content) : undefined;
      if (!pieces) {
        children.push(token);
        continue;
      }
      changed = true;
      for (const piece of pieces) {
        if (typeof piece !== 'string') children.push(piece);
        else if (piece !== '') children.push(Object.assign(new state.Token('text', '', 0), { content: piece }));
      }
    }
    if (changed) block.children = children;
  }
}

export const htmlToken = (state: StateCore, content: string): Token => Object.assign(new state.Token('html_inline', '', 0), { content });

/** The pieces of a text with each match of a global pattern replaced by a token (or kept when
 * `replace` gives none); undefined when nothing was replaced. */
export function replaceMatches(text: string, pattern: RegExp, replace: (match: string) => Token | undefined): Pieces | undefined {
  const pieces: Pieces = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const token = replace(match[0]);
    if (!token) continue;
    pieces.push(text.slice(last, match.index), token);
    last = match.index + match[0].length;
  }
  if (pieces.length === 0) return undefined;
  pieces.push(text.slice(last));
  return pieces;
}
