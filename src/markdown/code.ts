// Code blocks as Zulip's server writes them (Pygments through Python-Markdown's codehilite):
// Prism tokenises, and its token types are mapped onto Pygments' short CSS class names.
import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type PrismType from 'prismjs';
import { escapeAttr, escapeText } from './html.js';
import { languageOf } from './languages.js';

const require = createRequire(import.meta.url);
const Prism = require('prismjs') as typeof PrismType;
const loadLanguages = require('prismjs/components/index.js') as ((languages: string[]) => void) & { silent: boolean };
loadLanguages.silent = true;

/** Prism token type → Pygments class (Pygments' own defaults where Prism has the same idea). */
const classes: Record<string, string> = {
  keyword: 'k',
  builtin: 'nb',
  function: 'nf',
  'class-name': 'nc',
  string: 's',
  'template-string': 's',
  char: 'sc',
  regex: 'sr',
  number: 'mi',
  operator: 'o',
  punctuation: 'p',
  comment: 'c1',
  boolean: 'kc',
  constant: 'no',
  decorator: 'nd',
  annotation: 'nd',
  variable: 'nv',
  property: 'nt',
  tag: 'nt',
  'attr-name': 'na',
  'attr-value': 's',
  namespace: 'nn',
  important: 'k',
  deleted: 'gd',
  inserted: 'gi',
};

interface Style {
  /** Class of identifiers Prism leaves untokenised (Pygments' Name). */
  names?: string;
  /** Classes by token type that differ from the defaults. */
  types?: Record<string, string>;
  /** Classes of particular words, whatever Prism made of them. */
  words?: Record<string, string>;
  /** A first-line `#!` comment is Pygments' Comment.Hashbang. */
  hashbang?: boolean;
  /** Strings are classed by their quote: '…' String.Single, "…" String.Double. */
  quoted?: boolean;
}

const pythonWords: Record<string, string> = { self: 'bp', cls: 'bp', print: 'nb', True: 'kc', False: 'kc', None: 'kc', and: 'ow', or: 'ow', not: 'ow', in: 'ow', is: 'ow' };
const styles: Record<string, Style> = {
  python: { names: 'n', words: pythonWords, hashbang: true, quoted: true },
  latex: { types: { function: 'k', punctuation: 'nb', equation: 'nv' } },
  bash: { hashbang: true },
  javascript: { names: 'nx' },
  typescript: { names: 'nx' },
};

const loaded = new Set<string>();
function grammar(name: string): PrismType.Grammar | undefined {
  if (!loaded.has(name)) {
    loadLanguages([name]);
    loaded.add(name);
  }
  return Prism.languages[name];
}

type Piece = [className: string | null, text: string];

function numberClass(text: string): string {
  if (/^0x/i.test(text)) return 'mh';
  return /[.eE]/.test(text) ? 'mf' : 'mi';
}

function classOf(style: Style, type: string, text: string): string | null {
  const word = style.words?.[text];
  if (word) return word;
  if (type === 'number') return numberClass(text);
  if (type === 'string' && style.quoted) return text.startsWith("'") ? 's1' : 's2';
  return style.types?.[type] ?? classes[type] ?? null;
}

/** Flattens Prism's token tree to classed pieces; untokenised words get the language's name class. */
function pieces(stream: PrismType.TokenStream, style: Style, inherited: string | null, out: Piece[]): void {
  for (const token of typeof stream === 'string' ? [stream] : Array.isArray(stream) ? stream : [stream]) {
    if (typeof token !== 'string') {
      const text = typeof token.content === 'string' ? token.content : '';
      const own = classOf(style, token.type, text) ?? (token.alias ? classOf(style, String(token.alias), text) : null);
      pieces(token.content, style, own ?? inherited, out);
    } else if (inherited === null && style.names) {
      for (const part of token.match(/[\p{L}_][\p{L}\p{N}_]*|[^\p{L}_]+/gu) ?? []) out.push([/^[\p{L}_]/u.test(part) ? (style.words?.[part] ?? style.names) : null, part]);
    } else {
      out.push([inherited, token]);
    }
  }
}

/** Pygments' HTML: adjacent pieces of one class merged, whitespace and plain text bare, spans closed at line ends. */
function toHtml(parts: Piece[], escape: (text: string) => string): string {
  let html = '';
  let open: string | null = null;
  let buffer = '';
  const flush = (): void => {
    if (buffer !== '') html += open === null ? escape(buffer) : `<span class="${open}">${escape(buffer)}</span>`;
    buffer = '';
  };
  for (const [className, text] of parts) {
    for (const [i, line] of text.split('\n').entries()) {
      if (i > 0) {
        flush();
        html += '\n';
      }
      const kind = line.trim() === '' ? null : className;
      if (kind !== open) flush();
      open = kind;
      buffer += line;
    }
  }
  flush();
  return html;
}

// Pygments escapes quotes too; when a block names its language, Zulip re-serialises it through
// lxml, which writes them back as plain characters.
const escapeQuotes = (text: string): string => escapeAttr(text).replace(/'/g, '&#39;');

/** The language a block without a tag names on its first line (`#!python`, `:::python`). */
function headerLanguage(text: string): string | undefined {
  return /^(?:::+|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/.exec(text)?.[1]?.toLowerCase();
}

/** A code block: `lang` as written on its fence (lowercased), or undefined. */
export function formatCode(lang: string | undefined, text: string): string {
  const source = `${text.replace(/^\n+|\n+$/g, '')}\n`;
  const language = languageOf(lang ?? headerLanguage(source) ?? '');
  const escape = lang ? escapeText : escapeQuotes;
  const rules = language?.prism ? grammar(language.prism) : undefined;
  let body = escape(source);
  if (rules && language?.prism) {
    const style = styles[language.prism] ?? {};
    const parts: Piece[] = [];
    pieces(Prism.tokenize(source, rules), style, null, parts);
    if (style.hashbang && parts[0]?.[0] === 'c1' && parts[0][1].startsWith('#!')) parts[0] = ['ch', parts[0][1]];
    body = toHtml(parts, escape);
  }
  const attribute = lang ? ` data-code-language="${escapeAttr(language?.name ?? lang)}"` : '';
  return `<div class="codehilite"${attribute}><pre><span></span><code>${body}</code></pre></div>`;
}

/** Indented code blocks render as fenced ones without a language. */
export function codeBlockPlugin(md: MarkdownIt): void {
  md.renderer.rules.code_block = (tokens, idx) => `${formatCode(undefined, tokens[idx]!.content)}\n`;
}
