// JSON from clients, made fit to keep. A \u escape can name half of a surrogate pair, a string
// UTF-8 cannot hold: the realm's memory would keep the half while LMDB stores replacement
// characters, and the state would change with a restart. Such halves become U+FFFD here, as they
// do when a form body's bytes are not UTF-8.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Lone halves can only come from escapes: text decoded from bytes is always well formed. */
const surrogateEscape = /\\u[dD][89a-fA-F]/;

const wellFormed = (text: string): string => text.replace(loneSurrogate, '\ufffd');

/** JSON.parse, with every string and key well formed. Throws what JSON.parse throws. */
export function parseClientJson(text: string): unknown {
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
