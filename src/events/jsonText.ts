// A value held as the JSON text that encodes it, written by the server: for an event field of
// thousands of entries (an update_message_flags event's message_details), which costs a tenth to
// write as text of shared parts than to build as objects and serialize. Clients get the same JSON.
// Given as UTF-8 bytes, it is decoded once, when first read: a queue's delivery (after the write
// was answered) or a frame; an event no queue wants is never decoded.
export class JsonText<T> {
  private decoded: string | undefined;

  constructor(private readonly source: string | Buffer) {}

  get text(): string {
    this.decoded ??= typeof this.source === 'string' ? this.source : this.source.toString();
    return this.decoded;
  }

  /** The value, where text cannot be spliced in: msgpack frames and other nodes (msgpackr calls
   * toJSON), a plain JSON.stringify. */
  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}

/** What a JsonText field of an event is while it crosses a port between threads: a structured copy
 * keeps no class, so it goes as its text and is made a JsonText again on the other side. */
const CROSSING = 'jsonTextCrossing';

/** The event as it crosses a port: its top-level JsonText fields as their marked text (the event
 * itself when it has none). */
export function crossing<E extends object>(event: E): E {
  const fields = event as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const field = fields[key];
    if (!(field instanceof JsonText)) continue;
    copy ??= { ...fields };
    copy[key] = { [CROSSING]: field.text };
  }
  return (copy ?? event) as E;
}

/** The event as it was before it crossed: its marked texts JsonText again. */
export function crossed<E extends object>(event: E): E {
  const fields = event as Record<string, unknown>;
  for (const key in fields) {
    const field = fields[key];
    if (typeof field === 'object' && field !== null && CROSSING in field) fields[key] = new JsonText((field as Record<typeof CROSSING, string>)[CROSSING]);
  }
  return event;
}

/** An object's JSON with its top-level JsonText fields spliced in as they are, not re-encoded. */
export function jsonWithTexts(value: Record<string, unknown>): string {
  let texts = '';
  let plain = value;
  for (const key in value) {
    const field = value[key];
    if (!(field instanceof JsonText)) continue;
    if (plain === value) plain = { ...value };
    delete plain[key];
    texts += `,${JSON.stringify(key)}:${field.text}`;
  }
  const json = JSON.stringify(plain);
  return texts === '' ? json : `${json.slice(0, -1)}${json === '{}' ? texts.slice(1) : texts}}`;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c;
const QUOTE = 0x22;
const COLON = 0x3a;
const DIGIT_ZERO = 0x30;

/** A non-negative integer divided by ten, rounded down: by integer division (`| 0`, twice as fast
 * as Math.floor) where it fits 31 bits. */
const tenth = (value: number): number => (value <= 0x7fffffff ? (value / 10) | 0 : Math.floor(value / 10));

/** Writes a non-negative integer's decimal digits at `at`; returns where they end. */
function writeDigits(bytes: Buffer, at: number, value: number): number {
  let end = at + 1;
  for (let rest = tenth(value); rest > 0; rest = tenth(rest)) end++;
  for (let index = end - 1, rest = value; index >= at; index--) {
    const next = tenth(rest);
    bytes[index] = DIGIT_ZERO + (rest - next * 10);
    rest = next;
  }
  return end;
}

/** The JSON text of an object keyed by non-negative integers, whose values are given as JSON text in
 * UTF-8: written into one growing buffer, so thousands of entries make one string, not one each. */
export class NumberKeyedJson {
  private bytes = Buffer.allocUnsafe(4096);
  private length = 1;

  constructor() {
    this.bytes[0] = OPEN;
  }

  add(key: number, value: Buffer): void {
    // A comma, the key's digits (at most 16 for a safe integer) in quotes, a colon, the value.
    this.reserve(20 + value.length);
    const { bytes } = this;
    if (this.length > 1) bytes[this.length++] = COMMA;
    bytes[this.length++] = QUOTE;
    this.length = writeDigits(bytes, this.length, key);
    bytes[this.length++] = QUOTE;
    bytes[this.length++] = COLON;
    bytes.set(value, this.length);
    this.length += value.length;
  }

  /** The object's JSON text, in UTF-8. */
  json(): Buffer {
    this.reserve(1);
    this.bytes[this.length] = CLOSE;
    return this.bytes.subarray(0, this.length + 1);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}
