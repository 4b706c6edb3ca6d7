// Alert words: whether a message holds one of a user's words as a whole word, in any case (Zulip's
// rule). Each word list is compiled once into one Aho–Corasick automaton (modern-ahocorasick), kept
// for as long as the list itself, so checking a message is linear in its length whatever the
// number of words, and no pattern is built per message or per recipient.
import AhoCorasick from 'modern-ahocorasick';
import { Flag } from './records.js';

/** Zulip's limit on one alert word, and Parley's on how many a user keeps. */
export const MAX_ALERT_WORD_LENGTH = 100;
export const MAX_ALERT_WORDS = 1000;

/** The automaton of a word list; the list is a stored user record's field, replaced (never
 * changed in place) when the user edits it, so its identity tells when to compile again. */
const automata = new WeakMap<readonly string[], AhoCorasick>();

function automatonOf(words: readonly string[]): AhoCorasick {
  let automaton = automata.get(words);
  if (!automaton) {
    automaton = new AhoCorasick(words.map((word) => word.toLowerCase()));
    automata.set(words, automaton);
  }
  return automaton;
}

/** A character that may border a word (not an ASCII letter, digit or underscore, as `\W`). */
const isBoundary = (char: string | undefined): boolean => char === undefined || !/[A-Za-z0-9_]/.test(char);

/** The last content lowercased: a message is checked for each of its recipients in turn. */
let lowered = { content: '', text: '' };

export function hasAlertWord(words: readonly string[], content: string): boolean {
  if (words.length === 0) return false;
  if (lowered.content !== content) lowered = { content, text: content.toLowerCase() };
  const { text } = lowered;
  for (const hit of automatonOf(words).iterate(text)) if (isBoundary(text[hit.start - 1]) && isBoundary(text[hit.end])) return true;
  return false;
}

/** A recipient's flags with has_alert_word recomputed for the content. */
export function withAlertWordFlag(flags: number, words: readonly string[] | undefined, content: string): number {
  return words && hasAlertWord(words, content) ? flags | Flag.has_alert_word : flags & ~Flag.has_alert_word;
}
