// The four ways a Zulip client sends parameters — the query string, a form-urlencoded body, a
// multipart/form-data body and a JSON body — built by hand from a list of entries, so that a
// request can repeat a parameter, carry text that is not valid JSON or bytes that are not UTF-8.
import type { RawRequest } from './client.js';

export const encodings = ['query', 'form', 'multipart', 'json'] as const;
export type Encoding = (typeof encodings)[number];

/** One parameter's value: a JSON value (a string is sent as it is in form fields, like Zulip
 * clients do; anything else JSON-encoded), text sent as the parameter's encoded form (in a JSON
 * body: inlined as the value's JSON text, so it may be malformed), or raw bytes. */
export type WireValue = { json: unknown } | { text: string } | { bytes: Buffer };
export type Entry = readonly [name: string, value: WireValue];

function fieldBytes(value: WireValue): Buffer {
  if ('bytes' in value) return value.bytes;
  if ('text' in value) return Buffer.from(value.text);
  return Buffer.from(typeof value.json === 'string' ? value.json : JSON.stringify(value.json));
}

const unreserved = /[A-Za-z0-9\-._~]/;
const escaped = Array.from({ length: 256 }, (_, byte) => (byte < 0x80 && unreserved.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`));

/** Percent-encodes bytes as they are, valid UTF-8 or not. */
export function percentEncode(bytes: Buffer): string {
  let encoded = '';
  for (const byte of bytes) encoded += escaped[byte];
  return encoded;
}

const urlEncoded = (entries: readonly Entry[]): string =>
  entries.map(([name, value]) => `${percentEncode(Buffer.from(name))}=${percentEncode(fieldBytes(value))}`).join('&');

function multipart(entries: readonly Entry[], boundary: string): Buffer {
  // Field names are escaped as browsers do (HTML's multipart/form-data encoding).
  const quoted = (name: string) => name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const parts = entries.flatMap(([name, value]) => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n`), fieldBytes(value), Buffer.from('\r\n')]);
  return Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
}

function jsonText(value: WireValue): Buffer {
  if ('bytes' in value) return Buffer.concat([Buffer.from('"'), value.bytes, Buffer.from('"')]);
  return Buffer.from('text' in value ? value.text : JSON.stringify(value.json));
}

/** A JSON object written out entry by entry: a repeated name is repeated in the text. */
function jsonBody(entries: readonly Entry[]): Buffer {
  const members = entries.map(([name, value]) => Buffer.concat([Buffer.from(`${JSON.stringify(name)}:`), jsonText(value)]));
  const separated = members.flatMap((member, index) => (index === 0 ? [member] : [Buffer.from(','), member]));
  return Buffer.concat([Buffer.from('{'), ...separated, Buffer.from('}')]);
}

/** The request that sends the entries to `path` in the given encoding. */
export function encodeRequest(method: string, path: string, entries: readonly Entry[], encoding: Encoding, headers: Record<string, string>): RawRequest {
  switch (encoding) {
    case 'query': {
      const query = urlEncoded(entries);
      return { method, path: query === '' ? path : `${path}?${query}`, headers };
    }
    case 'form':
      return { method, path, headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: urlEncoded(entries) };
    case 'multipart': {
      const boundary = 'parley-fault-boundary-7d41';
      return { method, path, headers: { ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: multipart(entries, boundary) };
    }
    case 'json':
      return { method, path, headers: { ...headers, 'Content-Type': 'application/json' }, body: jsonBody(entries) };
  }
}
