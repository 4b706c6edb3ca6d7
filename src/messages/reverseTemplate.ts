// Reverse templates of linkifiers: `{var}` placeholders for the pattern's named groups, `{{` and
// `}}` for literal braces. A client turns a pasted URL back into the text the linkifier came from;
// the template is checked by a round trip: an example value for each group is put through the
// template, and the pattern must find that text and give the same values back.
import { RE2JS } from 're2js';

/** `{var}` placeholders of a reverse template, or undefined when the template is malformed. */
export function reverseVariables(template: string): string[] | undefined {
  const stripped = template.replace(/\{\{|\}\}/g, '');
  const names = [...stripped.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1]!);
  if (stripped.replace(/\{[^{}]*\}/g, '').match(/[{}]/) || !names.every((name) => /^[A-Za-z0-9_]+$/.test(name))) return undefined;
  return names;
}

/** The text a reverse template gives for these values. */
export const fillReverse = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{|\}\}|\{([A-Za-z0-9_]+)\}/g, (token, name?: string) => (name === undefined ? token[0]! : (values[name] ?? '')));

/** The source of each named group of a pattern (`(?P<name>…)` or `(?<name>…)`), by name. */
export function groupSources(pattern: string): Map<string, string> {
  const sources = new Map<string, string>();
  const open: { name: string | undefined; start: number }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i++;
    else if (char === '[') {
      // A character class ends at the first unescaped ']' that is not its first member.
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      i = j;
    } else if (char === '(') {
      const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(pattern.slice(i));
      open.push({ name: named?.[1], start: i + (named ? named[0].length : 1) });
    } else if (char === ')') {
      const group = open.pop();
      if (group?.name !== undefined) sources.set(group.name, pattern.slice(group.start, i));
    }
  }
  return sources;
}

const SAMPLES = ['1', '42', 'a', 'abc', 'A', 'ABC', 'a1', 'abc-123', 'a_b', 'a.b', 'a/b', 'a b'];

/** A value the group's own pattern matches in full — a common sample, or the group's source when
 * it is a plain literal — preferring one no other group was given, so swapped groups show. */
function sampleFor(source: string, taken: readonly string[]): string | undefined {
  const whole = RE2JS.compile(`^(?:${source})$`);
  const fits = [...SAMPLES, source].filter((candidate) => whole.matcher(candidate).find());
  return fits.find((candidate) => !taken.includes(candidate)) ?? fits[0];
}

/** False when filling the template with example values gives text from which the pattern does not
 * get the same values back. Templates whose groups have no example value pass unchecked. */
export function roundTrips(regex: RE2JS, pattern: string, template: string, variables: readonly string[]): boolean {
  const sources = groupSources(pattern);
  const values: Record<string, string> = {};
  for (const name of variables) {
    const sample = sampleFor(sources.get(name) ?? '', Object.values(values));
    if (sample === undefined) return true;
    values[name] = sample;
  }
  const matcher = regex.matcher(fillReverse(template, values));
  while (matcher.find()) if (variables.every((name) => matcher.group(name) === values[name])) return true;
  return false;
}
