// Zulip's emphasis: ***strong em***, **strong**, *em* and ~~del~~, each within one line; no
// underscores. Em may neither start nor end with a space, so `char *x = (char *)y` stays text.
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import { inLinkText } from './html.js';

interface Form {
  pattern: RegExp;
  tags: string[];
}

// Tried in this order at a `*` or `~` (Zulip's priorities: strong em, strong, em, del).
const forms: Form[] = [
  { pattern: /\*\*\*(?!\s)([^*^\n]+)(?<!\s)\*\*\*/y, tags: ['strong', 'em'] },
  { pattern: /\*\*([^\n]+?)\*\*/y, tags: ['strong'] },
  { pattern: /\*(?!\s)([^*^\n]+)(?<!\s)\*/y, tags: ['em'] },
  { pattern: /~~([^~\n]+?)~~(?!~)/y, tags: ['del'] },
];

function emphasisRule(state: StateInline, silent: boolean): boolean {
  const marker = state.src.charCodeAt(state.pos);
  if (marker !== 0x2a /* * */ && marker !== 0x7e /* ~ */) return false;
  // Markdown link text is taken as written (Zulip's links are atomic).
  if (inLinkText(state)) return false;
  if (marker === 0x7e && state.src[state.pos - 1] === '~') return false;
  for (const { pattern, tags } of forms) {
    pattern.lastIndex = state.pos;
    const match = pattern.exec(state.src);
    if (!match || match.index + match[0].length > state.posMax) continue;
    const width = (match[0].length - match[1]!.length) / 2;
    if (!silent) {
      for (const tag of tags) state.push(`${tag}_open`, tag, 1).markup = '*';
      const end = state.posMax;
      state.pos += width;
      state.posMax = state.pos + match[1]!.length;
      state.md.inline.tokenize(state);
      state.posMax = end;
      for (const tag of [...tags].reverse()) state.push(`${tag}_close`, tag, -1).markup = '*';
    }
    state.pos = match.index + match[0].length;
    return true;
  }
  return false;
}

export function emphasisPlugin(md: MarkdownIt): void {
  md.disable(['emphasis', 'strikethrough']);
  md.inline.ruler.before('emphasis', 'zulip_emphasis', emphasisRule);
}
