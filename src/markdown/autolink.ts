// Bare URLs and e-mail addresses become links by Zulip's rules: a scheme, or a domain ending in
// a real top-level domain (the `tlds` list, less file extensions such as .py); up to seven levels
// of balanced parentheses; trailing punctuation left out; only after a space or an opening mark.
import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import { envOf } from './env.js';
import { inLinkText, isWordChar } from './html.js';
import { localHref, sanitizeUrl } from './links.js';

const topLevelDomains = createRequire(import.meta.url)('tlds') as string[];
// Names that are far more often file extensions than domains.
const fileExtensions = new Set(['java', 'md', 'mov', 'py', 'zip']);

function urlPattern(): RegExp {
  const word = '\\p{L}\\p{N}_';
  const tlds = topLevelDomains
    .filter((tld) => !fileExtensions.has(tld))
    .sort((a, b) => b.length - a.length)
    .join('|');
  // Python has no recursive patterns either: nest the parenthesised group seven deep.
  const group = '[^\\s()"]*?(?:\\((?:INNER)\\)[^\\s()"]*?)*';
  let path = '[^\\s()"]*';
  for (let depth = 0; depth < 7; depth++) path = group.replace('INNER', path);
  const domain = `(?:https?://[${word}.:@-]+?|(?:[${word}-]+\\.)+(?:${tlds}))(?:/${path})?`;
  const email = `[${word}.-]+@[${word}.-]+\\.[${word}]+`;
  const bitcoin = 'bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34}';
  return new RegExp(`(?:${domain}|${email}|${bitcoin})(?=[!:;?),.'">]*(?:$|\\s))`, 'uy');
}

let pattern: RegExp | undefined;
const wordAt = /\S*/y;
const startsAfter = (char: string | undefined): boolean => char === undefined || char === ' ' || /[\s'"(,:<]/.test(char);

function autolinkRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (inLinkText(state) || !isWordChar(src[pos]) || !startsAfter(src[pos - 1])) return false;
  // Most words hold no dot, @ or colon: skip the large pattern for them.
  wordAt.lastIndex = pos;
  if (!/[.@:]/.test(wordAt.exec(src)![0])) return false;
  pattern ??= urlPattern();
  pattern.lastIndex = pos;
  const match = pattern.exec(src);
  if (!match || pos + match[0].length > state.posMax) return false;
  const href = sanitizeUrl(match[0]);
  if (href === undefined) return false;
  if (!silent) {
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', localHref(envOf(state).realmUrl, href)]];
    open.markup = 'autolink';
    state.push('text', '', 0).content = match[0];
    state.push('link_close', 'a', -1).markup = 'autolink';
  }
  state.pos += match[0].length;
  return true;
}

// A run of ordinary characters (not markdown-it's terminators), ending after the first space or
// opening mark, where a link may start.
const plainRun = /[^\n!#$%&*+\-:<=>@[\\\]^_`{}~ \t'"(,]*[ \t'"(,]?/y;

/** Plain text up to the next special character, or to the start of a word that may be a link. */
function textRule(state: StateInline, silent: boolean): boolean {
  plainRun.lastIndex = state.pos;
  const end = Math.min(state.pos + plainRun.exec(state.src)![0].length, state.posMax);
  if (end === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

export function autolinkPlugin(md: MarkdownIt): void {
  md.inline.ruler.at('text', textRule);
  md.inline.ruler.before('text', 'zulip_autolink', autolinkRule);
}
