// An answer whose fields are JSON already: made where the realm runs for the commands whose
// answers go to the client as they are (a window of messages, register's state), so that a realm
// on another thread or node sends the JSON rather than the objects it would be made from (copied
// across, and encoded again where the request came in); http/response.ts joins them to the head of
// a success answer as they are.
//
// Short JSON is kept as text; long JSON as UTF-8 bytes, made in pieces: a string longer than V8's
// largest regular heap object (128 KiB) is made in its large-object space, in pages of its own, and
// making one flat there (which writing it anywhere does: JSON.stringify's result is a rope of
// parts) cost ~700 µs for 150 KB on this machine, where fresh pages are dear, against ~60 µs for
// 100 KB. A register's state went through that three times (its bytes for the socket, counting
// them, and the copy to another thread).

/** The most characters a piece of JSON text is made of before it is written out as bytes: below
 * the large-object size for one-byte strings and two-byte ones alike. */
const PIECE = 60 * 1024;

/** JSON text, or its UTF-8 bytes when long. */
export type Json = string | Uint8Array;

/** An object's members as JSON, without its braces: kept once derived, so not copied and encoded
 * again for each request. */
export class JsonFields {
  constructor(readonly json: Json) {}

  /** Fields from parts of JSON, joined in order (each part members as JSON, the commas between
   * them included): text when every part is, else bytes. */
  static of(...parts: readonly Json[]): JsonFields {
    if (parts.every((part) => typeof part === 'string')) return new JsonFields(parts.join(''));
    return new JsonFields(Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))));
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

/** A value's JSON as JSON.stringify writes it (undefined where it writes nothing), or a JsonArray
 * as it is. */
const jsonOf = (value: unknown): string | JsonArray<unknown> | undefined => (value instanceof JsonArray ? value : (JSON.stringify(value) as string | undefined));

/** Whether JSON.stringify writes the value as its elements or members: an array or a plain object
 * without a toJSON of its own. */
const divisible = (value: object): boolean => {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
};

/** JSON written as text while it is short, and past a piece as UTF-8 bytes from pieces of text each
 * at most PIECE characters long where the value allows: arrays and plain objects too long for one
 * piece are written part by part. */
export class JsonWriter {
  private readonly chunks: Buffer[] = [];
  private text = '';

  /** Appends JSON text (at most a piece long, or whatever a value too long and indivisible gave). */
  add(json: string): void {
    if (this.text.length + json.length > PIECE) this.flush();
    this.text += json;
  }

  /** Appends a value's JSON; false (nothing written) where JSON.stringify gives none (undefined, a
   * function). */
  value(value: unknown): boolean {
    const json = jsonOf(value);
    if (json === undefined) return false;
    this.write(value, json);
    return true;
  }

  /** Appends a value whose JSON text is `json`: as it is when a piece can hold it (a rope's length
   * is known without making it flat), else part by part. */
  private write(value: unknown, json: string | JsonArray<unknown>): void {
    if (json instanceof JsonArray) {
      this.add('[');
      json.elements.forEach((element, index) => this.add(index === 0 ? element : `,${element}`));
      this.add(']');
    } else if (json.length <= PIECE || typeof value !== 'object' || value === null || !divisible(value)) this.add(json);
    else if (Array.isArray(value)) this.elements(value, json.length);
    else this.members(value, true);
  }

  /** Appends an object's members as JSON (within braces if `braces`), those JSON.stringify leaves
   * out left out. */
  members(object: object, braces: boolean): void {
    if (braces) this.add('{');
    let first = true;
    for (const [key, member] of Object.entries(object)) {
      const json = jsonOf(member);
      if (json === undefined) continue;
      this.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
      this.write(member, json);
      first = false;
    }
    if (braces) this.add('}');
  }

  /** Appends an array as JSON, whose JSON text is `length` long: in slices of about half a piece
   * each, a slice still too long split in two, a single element by `value`. */
  private elements(array: readonly unknown[], length: number): void {
    this.add('[');
    const step = Math.max(1, Math.ceil(array.length / Math.ceil((2 * length) / PIECE)));
    for (let start = 0; start < array.length; start += step) {
      if (start > 0) this.add(',');
      this.slice(array, start, Math.min(array.length, start + step));
    }
    this.add(']');
  }

  /** Appends elements `from` to `to` (exclusive) of an array, comma-separated, without brackets. */
  private slice(array: readonly unknown[], from: number, to: number): void {
    if (to - from === 1) {
      if (!this.value(array[from])) this.add('null');
      return;
    }
    const json = JSON.stringify(array.slice(from, to));
    if (json.length <= PIECE) return this.add(json.slice(1, -1));
    const middle = (from + to) >>> 1;
    this.slice(array, from, middle);
    this.add(',');
    this.slice(array, middle, to);
  }

  private flush(): void {
    if (this.text.length === 0) return;
    this.chunks.push(Buffer.from(this.text));
    this.text = '';
  }

  /** The JSON written: the text, if no piece has been written out as bytes, else bytes of their
   * own (more than a piece: not a view of Node's pool of small buffers, which a copy to another
   * thread would carry whole). */
  result(): Json {
    if (this.chunks.length === 0) return this.text;
    this.flush();
    return Buffer.concat(this.chunks);
  }
}

/** A plain object's members as JSON, without its braces. */
export function membersOf(output: object): Json {
  const writer = new JsonWriter();
  writer.members(output, false);
  return writer.result();
}

/** A plain object's members as JSON text, without its braces (a part of fields made later). */
export const membersJson = (output: object): string => JSON.stringify(output).slice(1, -1);

/** A plain object's members as JSON fields. */
export const fieldsOf = (output: object): JsonFields => new JsonFields(membersOf(output));
