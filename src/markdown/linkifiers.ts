// The realm's linkifiers (RE2 patterns with URL templates) turn matches in plain text into links;
// the earliest match wins, the first linkifier on a tie (Zulip's order).
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type { CompiledLinkifier } from '../messages/linkifiers.js';
import { envOf } from './env.js';
import { rewriteText, type Pieces } from './textRuns.js';

function firstMatch(linkifiers: readonly CompiledLinkifier[], text: string) {
  let best: { start: number; end: number; href: string } | undefined;
  for (const linkifier of linkifiers) {
    const matcher = linkifier.regex.matcher(text);
    if (!matcher.find()) continue;
    if (best && matcher.start() >= best.start) continue;
    const values = Object.fromEntries(linkifier.groups.map((group) => [group, matcher.group(group) ?? '']));
    best = { start: matcher.start(), end: matcher.end(), href: linkifier.expand(values) };
  }
  return best;
}

function linkifierRule(state: StateCore): void {
  const linkifiers = envOf(state).linkifiers;
  if (!linkifiers || linkifiers.length === 0) return;
  rewriteText(state, (text) => {
    const pieces: Pieces = [];
    let rest = text;
    for (let match = firstMatch(linkifiers, rest); match && match.end > match.start; match = firstMatch(linkifiers, rest)) {
      const open = new state.Token('link_open', 'a', 1);
      open.attrs = [['href', match.href]];
      const inner = Object.assign(new state.Token('text', '', 0), { content: rest.slice(match.start, match.end) });
      pieces.push(rest.slice(0, match.start), open, inner, new state.Token('link_close', 'a', -1));
      rest = rest.slice(match.end);
    }
    if (pieces.length === 0) return undefined;
    pieces.push(rest);
    return pieces;
  });
}

export function linkifiersPlugin(md: MarkdownIt): void {
  md.core.ruler.after('text_join', 'zulip_linkifiers', linkifierRule);
}
