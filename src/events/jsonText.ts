// A value held as the JSON text that encodes it, written by the server: for an event field of
// thousands of entries (an update_message_flags event's message_details), which costs a tenth to
// write as text of shared parts than to build as objects and serialize. Clients get the same JSON.
export class JsonText<T> {
  constructor(readonly text: string) {}

  /** The value, where text cannot be spliced in: msgpack frames and other nodes (msgpackr calls
   * toJSON), a plain JSON.stringify. */
  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
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
