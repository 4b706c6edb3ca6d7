// An answer whose fields are JSON already: made where the realm runs for the commands whose
// answers go to the client as they are (a window of messages, register's state), so that a realm
// on another thread or node sends the JSON rather than the objects it would be made from (copied
// across, and encoded again where the request came in); http/response.ts joins them to the head of
// a success answer as they are.
//
// Long JSON is made in pieces of text, each shorter than V8's largest regular heap object
// (128 KiB), and joined only where the answer is written (http/response.ts, into a kept buffer): a
// longer string is made in V8's large-object space, in pages of its own, and making one flat there
// (which writing it anywhere does: JSON.stringify's result is a rope of parts) cost ~700 µs for 150
// KB on this machine, where fresh pages are dear, against ~60 µs for 100 KB. A register's state
// went through that three times (its bytes for the socket, counting them, and the copy to another
// thread); as UTF-8 bytes of its own, it still cost a new buffer as long as the answer.

/** The most characters a piece of JSON text is made of: below the large-object size for one-byte
 * strings and two-byte ones alike. */
export const PIECE = 60 * 1024;

/** An object's members as JSON, without its braces, in parts (pieces of text, the commas between
 * parts included) joined only where the answer is written: kept once derived, so not copied and
 * encoded again for each request. */
export class JsonFields {
  readonly parts: readonly string[];

  constructor(...parts: string[]) {
    this.parts = parts;
  }
}

/** An array held as its elements' JSON (entries derived once and kept): written as they are, not
 * decoded and encoded again; JSON.stringify decodes them. */
export class JsonArray<T> {
  constructor(readonly elements: readonly string[]) {}

  toJSON(): T[] {
    return this.elements.map((element) => JSON.parse(element) as T);
  }
}

/** Whether JSON.stringify writes the value as its elements or members: an array or a plain object
 * without a toJSON of its own. */
const divisible = (value: unknown): value is object => {
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
};

/** Arrays of at most this many elements are made whole first (a window of messages): one more
 * encoding of their first element would cost more than the rare one too long for a piece. */
const SHORT_ARRAY = 64;

/** How many elements or members go in a slice of about half a piece, going by one's JSON length. */
const stepFor = (count: number, length: number): number => Math.max(1, Math.floor((count * PIECE) / 2 / Math.max(length, 1)));

/** JSON written in pieces of text, each at most PIECE characters long where the value allows:
 * arrays and plain objects too long for one piece are written in slices of their elements or
 * members. Each part is JSON.stringify's own, so the text is JSON.stringify's, but for a toJSON
 * that reads its key: one of an element or member is called with its place in a slice, or ''. */
export class JsonWriter {
  private readonly pieces: string[] = [];
  private text = '';

  /** Appends JSON text (at most a piece long, or whatever a value too long and indivisible gave). */
  private add(json: string): void {
    if (this.text.length + json.length > PIECE) this.flush();
    this.text += json;
  }

  /** Appends `prefix` and a value's JSON; false (nothing written) where JSON.stringify writes none
   * (undefined, a function, a symbol). */
  value(value: unknown, prefix = ''): boolean {
    if (value instanceof JsonArray) {
      this.add(`${prefix}[`);
      value.elements.forEach((element, index) => this.add(index === 0 ? element : `,${element}`));
      this.add(']');
      return true;
    }
    const parts = divisible(value);
    if (parts && Array.isArray(value)) {
      this.add(prefix);
      this.elements(value);
      return true;
    }
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) return false;
    // A rope's length is known without making it flat: a long object is written again in slices.
    if (parts && json.length > PIECE) {
      const entries = Object.entries(value);
      this.add(`${prefix}{`);
      this.slices(entries.length, stepFor(entries.length, json.length), (from, to) => JSON.stringify(Object.fromEntries(entries.slice(from, to))), (index, comma) => this.value(entries[index]![1], `${comma}${JSON.stringify(entries[index]![0])}:`));
      this.add('}');
    } else {
      this.add(prefix);
      this.add(json);
    }
    return true;
  }

  /** Appends an object's members as JSON, without its braces, each by `value`. */
  members(object: object): void {
    let first = true;
    for (const [key, member] of Object.entries(object)) {
      if (this.value(member, `${first ? '' : ','}${JSON.stringify(key)}:`)) first = false;
    }
  }

  /** Appends an array as JSON: whole when a piece holds it, else in slices; how many elements a
   * slice takes is guessed, for a long array, from its first element's length (not the whole
   * array's, which would be made only to be cut). */
  private elements(array: readonly unknown[]): void {
    let step = array.length <= SHORT_ARRAY ? array.length : stepFor(1, (JSON.stringify(array[0]) as string | undefined)?.length ?? 4);
    if (step >= array.length) {
      const json = JSON.stringify(array);
      if (json.length <= PIECE) return this.add(json);
      step = stepFor(array.length, json.length);
    }
    this.add('[');
    this.slices(
      array.length,
      step,
      (from, to) => JSON.stringify(array.slice(from, to)),
      (index, comma) => {
        // As JSON.stringify writes an element it would leave out of an object.
        if (!this.value(array[index], comma)) this.add(`${comma}null`);
        return true;
      },
    );
    this.add(']');
  }

  /** Appends `count` elements or members, comma-separated, in slices starting `first` long: `json`
   * gives a slice's JSON (brackets or braces included), its length sets the next slice's step, and
   * one too long is made again, shorter; a single one too long is written by `one` (false: it wrote
   * nothing). */
  private slices(count: number, first: number, json: (from: number, to: number) => string, one: (index: number, comma: string) => boolean): void {
    let wrote = false;
    let step = first;
    for (let start = 0; start < count; ) {
      const end = Math.min(count, start + step);
      const comma = wrote ? ',' : '';
      if (end - start === 1) {
        if (one(start, comma)) wrote = true;
        start = end;
        // One long element does not make every one after it a slice of its own.
        step = Math.max(step, 2);
        continue;
      }
      const text = json(start, end);
      // At most twice as many as this slice's (one nearly empty would set the rest as the next).
      step = Math.min(2 * (end - start), stepFor(end - start, text.length));
      if (text.length > PIECE) continue;
      // A slice of members all left out is '{}'.
      if (text.length > 2) {
        this.add(comma + text.slice(1, -1));
        wrote = true;
      }
      start = end;
    }
  }

  private flush(): void {
    if (this.text.length === 0) return;
    this.pieces.push(this.text);
    this.text = '';
  }

  /** The JSON written, in pieces of at most PIECE characters (but a value too long and indivisible,
   * whole): one piece, or none, while it is short. */
  result(): string[] {
    this.flush();
    return this.pieces;
  }
}

/** A plain object's members as JSON, without its braces, in pieces. */
export function membersOf(output: object): string[] {
  const writer = new JsonWriter();
  writer.members(output);
  return writer.result();
}

/** A plain object's members as JSON text, without its braces (a part of fields made later). */
export const membersJson = (output: object): string => JSON.stringify(output).slice(1, -1);

/** A plain object's members as JSON fields. */
export const fieldsOf = (output: object): JsonFields => new JsonFields(...membersOf(output));
