// Zulip's event filters of every integration's URL: `only_events` and `exclude_events`, lists of
// shell-style patterns (fnmatch: `*`, `?`, `[seq]`, `[!seq]`) over the event types an integration
// names. Matched without a regular expression, in time proportional to the pattern times the name:
// patterns come from whoever holds a key, and a backtracking regex of them could stall the server
// (the schema bounds them too: 100 patterns of 200 characters).

/** One step of a pattern: a run, one character, a character from a set, or a literal. */
type Step = { kind: 'star' } | { kind: 'one' } | { kind: 'set'; chars: string; negated: boolean } | { kind: 'literal'; char: string };

function steps(pattern: string): Step[] {
  const parsed: Step[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') parsed.push({ kind: 'star' });
    else if (char === '?') parsed.push({ kind: 'one' });
    else if (char === '[' && pattern.indexOf(']', index + 2) > 0) {
      const end = pattern.indexOf(']', index + 2);
      const negated = pattern[index + 1] === '!';
      parsed.push({ kind: 'set', chars: expandRanges(pattern.slice(index + (negated ? 2 : 1), end)), negated });
      index = end;
    } else parsed.push({ kind: 'literal', char });
  }
  return parsed;
}

/** `a-d` as `abcd`. */
function expandRanges(set: string): string {
  let chars = '';
  for (let index = 0; index < set.length; index++) {
    if (set[index + 1] === '-' && index + 2 < set.length) {
      for (let code = set.charCodeAt(index); code <= set.charCodeAt(index + 2); code++) chars += String.fromCharCode(code);
      index += 2;
    } else chars += set[index];
  }
  return chars;
}

const accepts = (step: Step, char: string): boolean =>
  step.kind === 'one' || (step.kind === 'literal' && step.char === char) || (step.kind === 'set' && step.chars.includes(char) !== step.negated);

/** Whether a name matches a pattern: the classic wildcard match, going back only to the last star. */
export function fnmatch(name: string, pattern: string): boolean {
  const parsed = steps(pattern);
  let at = 0;
  let step = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (at < name.length) {
    const current = parsed[step];
    if (current !== undefined && current.kind !== 'star' && accepts(current, name[at]!)) {
      at++;
      step++;
    } else if (current?.kind === 'star') {
      lastStar = step++;
      resumeAt = at;
    } else if (lastStar >= 0) {
      step = lastStar + 1;
      at = ++resumeAt;
    } else return false;
  }
  while (parsed[step]?.kind === 'star') step++;
  return step === parsed.length;
}

/** Whether an event of this type is posted under the URL's filters. */
export function passesEventFilters(eventType: string, only: readonly string[] | undefined, exclude: readonly string[] | undefined): boolean {
  if (only !== undefined && !only.some((pattern) => fnmatch(eventType, pattern))) return false;
  return exclude === undefined || !exclude.some((pattern) => fnmatch(eventType, pattern));
}
