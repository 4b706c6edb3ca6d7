// Full-text search: the words of a message as the index holds them, the query a `search:` narrow
// term asks, whether one message matches it, and the highlights Zulip's clients show. A message's
// text is its topic and its rendered content outside tags (as Zulip's search_tsvector); words are
// runs of letters and digits, lowercased and reduced to their English stem (Porter), and stop
// words are left out, as PostgreSQL's english configuration does for Zulip.
import { stopwords } from '@orama/stopwords/english';
import { stemmer } from 'stemmer';
import { escapeText } from '../markdown/html.js';

/** Zulip's stop words: the Snowball English list, and every single letter (words that can hold no
 * apostrophe, since apostrophes split words). Register reports them (`stop_words`). */
export const STOP_WORDS: readonly string[] = [...new Set([...stopwords.filter((word) => !word.includes("'")), ...'abcdefghijklmnopqrstuvwxyz'])];
const stopWords = new Set(STOP_WORDS);

/** The most characters of a word the index keys hold: longer words are known by their start. */
const TERM_LENGTH_LIMIT = 60;

const WORD = /[\p{L}\p{N}]+/gu;

/** Stems of the words seen lately: chat repeats its words, and stemming is most of indexing's cost. */
const stems = new Map<string, string>();
const STEMS_KEPT = 100_000;

function termOf(word: string): string {
  let term = stems.get(word);
  if (term === undefined) {
    if (stems.size >= STEMS_KEPT) stems.clear();
    term = stemmer(word).slice(0, TERM_LENGTH_LIMIT);
    stems.set(word, term);
  }
  return term;
}

/** A word of a text: where it starts and ends, its stem, and whether it is a stop word (as
 * written: stems of stop words are not all stop words). */
interface Token {
  start: number;
  end: number;
  term: string;
  stop: boolean;
}

function* tokens(text: string): Generator<Token> {
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    yield { start: match.index, end: match.index + match[0].length, term: termOf(word), stop: stopWords.has(word) };
  }
}

const TAG_OR_ENTITY = /<[^>]*>|&(?:#\d+|#x[\da-f]+|\w+);/gi;

/** The pieces of rendered HTML outside tags and character references, with where each starts. */
function* htmlText(html: string): Generator<{ text: string; offset: number }> {
  let offset = 0;
  for (const match of html.matchAll(TAG_OR_ENTITY)) {
    if (match.index > offset) yield { text: html.slice(offset, match.index), offset };
    offset = match.index + match[0].length;
  }
  if (offset < html.length) yield { text: html.slice(offset), offset };
}

/** Every word of a message (topic, then content) in order, stop words included. */
function messageTokens(message: { topic: string; renderedContent: string }): Token[] {
  const found = [...tokens(message.topic)];
  for (const piece of htmlText(message.renderedContent)) found.push(...tokens(piece.text));
  return found;
}

/** The distinct terms of a message's words that are not stop words. */
const termSet = (found: readonly Token[]): Set<string> => new Set(found.filter((token) => !token.stop).map((token) => token.term));

/** Adds the terms of a text's words that are not stop words to `terms` (what `tokens` and
 * `termSet` give, without a token per word: the send path indexes every message). */
function addTerms(text: string, terms: Set<string>): void {
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    if (!stopWords.has(word)) terms.add(termOf(word));
  }
}

function addContentTerms(html: string, terms: Set<string>): void {
  for (const piece of htmlText(html)) addTerms(piece.text, terms);
}

/** The distinct terms the index holds for rendered content: computed where the content was
 * rendered when that is off the realm's thread, and handed to `indexTerms`. */
export function contentTerms(html: string): string[] {
  const terms = new Set<string>();
  addContentTerms(html, terms);
  return [...terms];
}

/** The distinct terms the index holds for a message: its topic's, then its content's (`content`:
 * as `contentTerms` gave them for its rendered content, when known already). */
export function indexTerms(message: { topic: string; renderedContent: string }, content?: readonly string[]): Set<string> {
  const terms = new Set<string>();
  addTerms(message.topic, terms);
  if (content) for (const term of content) terms.add(term);
  else addContentTerms(message.renderedContent, terms);
  return terms;
}

/** A `search:` operand: the terms every match holds, the last word typed as a prefix, and quoted
 * phrases whose words must stand together. Plain data (event queues keep their narrows). */
export interface SearchQuery {
  /** Stems every match holds: the words and the phrases' words, stop words left out. */
  terms: string[];
  /** The last word, unquoted and not a stop word: a match holds its stem or a word starting with it. */
  prefix: { word: string; term: string } | null;
  /** Quoted phrases as stems, stop words included: a match holds each as consecutive words. */
  phrases: string[][];
}

const QUERY_PART = /"([^"]*)"?|(\S+)/g;

export function parseSearch(operand: string): SearchQuery {
  const parts = [...operand.toLowerCase().matchAll(QUERY_PART)].map((match) => ({ quoted: match[1] !== undefined, text: match[1] ?? match[2]! }));
  const phrases: string[][] = [];
  const words: Token[] = [];
  for (const part of parts) {
    const found = [...tokens(part.text)];
    if (part.quoted && found.length > 1) phrases.push(found.map((word) => word.term));
    words.push(...found);
  }
  // The last word typed, unless quoted or a stop word, may be unfinished: it matches as a prefix.
  const lastPart = parts.at(-1);
  const last = lastPart && !lastPart.quoted ? words.at(-1) : undefined;
  const prefixed = last && !last.stop ? last : undefined;
  const terms = termSet(words.filter((word) => word !== prefixed));
  // A word that also stands elsewhere is required as written: its prefix adds nothing.
  const prefix = prefixed && !terms.has(prefixed.term) ? { word: lastPart!.text.slice(prefixed.start, prefixed.end).slice(0, TERM_LENGTH_LIMIT), term: prefixed.term } : null;
  return { terms: [...terms], prefix, phrases };
}

/** Whether a query names any word the index holds (one of stop words only matches nothing). */
export const searchable = (query: SearchQuery): boolean => query.terms.length > 0 || query.prefix !== null;

const prefixHolds = (prefix: NonNullable<SearchQuery['prefix']>, term: string): boolean => term === prefix.term || term.startsWith(prefix.word);

/** Whether `terms` (a message's words in order) hold `phrase` as consecutive words. */
function holdsPhrase(terms: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= terms.length; start++) {
    if (phrase.every((term, offset) => terms[start + offset] === term)) return true;
  }
  return false;
}

/** Whether a message matches the query: every term, the prefix and every phrase. */
export function searchMatches(query: SearchQuery, message: { topic: string; renderedContent: string }): boolean {
  if (!searchable(query)) return false;
  const found = messageTokens(message);
  const present = termSet(found);
  if (!query.terms.every((term) => present.has(term))) return false;
  if (query.prefix && ![...present].some((term) => prefixHolds(query.prefix!, term))) return false;
  return phrasesHold(query, found.map((token) => token.term));
}

/** Whether a message's words (in order) hold every phrase of the query. */
export function phrasesHold(query: SearchQuery, terms: readonly string[]): boolean {
  return query.phrases.every((phrase) => holdsPhrase(terms, phrase));
}

/** A message's words in order, for checking phrases on a message the index found. */
export const wordsOf = (message: { topic: string; renderedContent: string }): string[] => messageTokens(message).map((token) => token.term);

const highlighted = (query: SearchQuery, token: Token): boolean =>
  !token.stop && (query.terms.includes(token.term) || (query.prefix !== null && prefixHolds(query.prefix, token.term)));

/** Wraps each word of `text` that the query matched in Zulip's highlight span. */
function highlightText(query: SearchQuery, text: string): string {
  let out = '';
  let offset = 0;
  for (const token of tokens(text)) {
    if (!highlighted(query, token)) continue;
    out += `${text.slice(offset, token.start)}<span class="highlight">${text.slice(token.start, token.end)}</span>`;
    offset = token.end;
  }
  return out + text.slice(offset);
}

/** Highlights the matched words of HTML, outside tags and character references. */
function highlightHtml(query: SearchQuery, html: string): string {
  let out = '';
  let offset = 0;
  for (const piece of htmlText(html)) {
    out += html.slice(offset, piece.offset) + highlightText(query, piece.text);
    offset = piece.offset + piece.text.length;
  }
  return out + html.slice(offset);
}

/** Zulip's match_content and match_subject: the rendered content and the escaped topic, with the
 * words the query matched highlighted (without a query, as they are). */
export function searchHighlights(query: SearchQuery | undefined, message: { topic: string; renderedContent: string }): { match_content: string; match_subject: string } {
  const subject = escapeText(message.topic);
  return query ? { match_content: highlightHtml(query, message.renderedContent), match_subject: highlightHtml(query, subject) } : { match_content: message.renderedContent, match_subject: subject };
}
