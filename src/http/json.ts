// JSON from clients, made fit to keep. A \u escape can name half of a surrogate pair, a string
// UTF-8 cannot hold: the realm's memory would keep the half while LMDB stores replacement
// characters, and the state would change with a restart. Such halves become U+FFFD here, as they
// do when a form body's bytes are not UTF-8.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Lone halves can only come from escapes: text decoded from bytes is always well formed. */
const surrogateEscape = /\\u[dD][89a-fA-F]/;

const wellFormed = (text: string): string => text.replace(loneSurrogate, '\ufffd');

/** How deep a client's JSON may nest: orjson's limit (Zulip's typed endpoints, parsed by pydantic,
 * stop at 200, so no Zulip client needs more). What is parsed goes on to code that walks it
 * recursively — a structured copy to another thread (PARLEY_THREADS), JSON.stringify — which a
 * document nested thousands deep overflows. */
export const MAX_JSON_DEPTH = 1024;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d;

/** Whether JSON text nests arrays and objects deeper than `limit` (strings skipped). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      for (at++; at < text.length && text.charCodeAt(at) !== QUOTE; at++) if (text.charCodeAt(at) === BACKSLASH) at++;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** JSON.parse, with every string and key well formed, and nested at most MAX_JSON_DEPTH deep.
 * Throws what JSON.parse throws (a SyntaxError, also for a document nested deeper). */
export function parseClientJson(text: string): unknown {
  // Nesting deeper than the limit takes more characters than the limit: shorter text is not read twice.
  if (text.length > MAX_JSON_DEPTH && nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} deep`);
  const parsed: unknown = JSON.parse(text);
  if (!surrogateEscape.test(text)) return parsed;
  if (typeof parsed === 'string') return wellFormed(parsed);
  // Iterative: a client's JSON may be nested deeper than the call stack goes.
  const pending: unknown[] = [parsed];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node !== 'object' || node === null) continue;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const value = record[key];
      const [fixedKey, fixed] = [wellFormed(key), typeof value === 'string' ? wellFormed(value) : value];
      if (fixedKey !== key || fixed !== value) {
        delete record[key];
        // Defined, not assigned: a key may be "__proto__".
        Object.defineProperty(record, fixedKey, { value: fixed, writable: true, enumerable: true, configurable: true });
      }
      pending.push(value);
    }
  }
  return parsed;
}
