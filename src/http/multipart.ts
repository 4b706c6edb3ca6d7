// A multipart/form-data body parsed as it arrives, for uploads: text fields are collected (small),
// and each file part's bytes are handed on chunk by chunk, so a file never sits whole in memory.
import { errors } from '../errors.js';

export interface PartSink {
  /** Takes a chunk of the file; false asks the sender to wait for `drain`. */
  write(chunk: Buffer): boolean;
  end(): void;
}

export interface MultipartHandlers {
  field(name: string, value: string): void;
  /** A file part begins: where its bytes go. */
  file(field: string, filename: string, contentType: string): PartSink;
}

/** The most bytes of a text field or of one part's headers. */
const FIELD_LIMIT = 64 * 1024;

export function boundaryOf(contentType: string): string | undefined {
  const match = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** RFC 7578 part headers: the field name, the file name (RFC 5987 `filename*` preferred) and type. */
function partHead(text: string): { name: string; filename: string | undefined; contentType: string } {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const param = (key: string) => new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition)?.[1]?.replace(/\\(.)/g, '$1') ?? new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(disposition)?.[1];
  const extended = /;\s*filename\*=(?:UTF-8)?'[^']*'([^;\s]+)/i.exec(disposition)?.[1];
  let filename = param('filename');
  if (extended !== undefined) {
    try {
      filename = decodeURIComponent(extended);
    } catch {
      // Keep the plain filename.
    }
  }
  return { name: param('name') ?? '', filename, contentType: headers.get('content-type') ?? '' };
}

export class MultipartParser {
  private readonly delimiter: Buffer;
  private pending = Buffer.alloc(0);
  private state: 'preamble' | 'head' | 'body' | 'done' = 'preamble';
  private part: { name: string; sink: PartSink | undefined; text: Buffer[]; textBytes: number } | undefined;

  constructor(
    boundary: string,
    private readonly handlers: MultipartHandlers,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Feeds the next bytes of the body (copied: the caller may reuse its buffer); returns false
   * when a file's sink asked to wait. */
  write(chunk: Uint8Array): boolean {
    // The preamble starts right at the boundary, without the delimiter's CRLF: pretend it had one.
    this.pending = this.pending.length === 0 && this.state === 'preamble' ? Buffer.concat([Buffer.from('\r\n'), chunk]) : Buffer.concat([this.pending, chunk]);
    let flowing = true;
    for (;;) {
      if (this.state === 'done') {
        this.pending = Buffer.alloc(0);
        return flowing;
      }
      if (this.state === 'preamble' || this.state === 'head') {
        const marker = this.state === 'preamble' ? this.delimiter : Buffer.from('\r\n\r\n');
        const at = this.pending.indexOf(marker);
        if (at < 0) {
          if (this.pending.length > FIELD_LIMIT) throw errors.badRequest('Malformed multipart body');
          return flowing;
        }
        if (this.state === 'preamble') {
          this.pending = this.pending.subarray(at + marker.length);
          if (!this.afterDelimiter()) return flowing;
        } else {
          this.startPart(this.pending.subarray(0, at).toString('utf8'));
          this.pending = this.pending.subarray(at + marker.length);
          this.state = 'body';
        }
        continue;
      }
      const at = this.pending.indexOf(this.delimiter);
      const safe = at < 0 ? Math.max(0, this.pending.length - this.delimiter.length) : at;
      if (safe > 0) flowing = this.deliver(this.pending.subarray(0, safe)) && flowing;
      this.pending = this.pending.subarray(safe);
      if (at < 0) return flowing;
      this.pending = this.pending.subarray(this.delimiter.length);
      this.endPart();
      if (!this.afterDelimiter()) return flowing;
    }
  }

  /** The body ended: it must have ended with the closing boundary. */
  end(): void {
    if (this.state !== 'done') throw errors.badRequest('Malformed multipart body');
  }

  /** After a delimiter: `--` closes the body, CRLF starts a part; false while the two bytes are
   * not there yet. */
  private afterDelimiter(): boolean {
    if (this.pending.length < 2) {
      // Wait for the two bytes: put the delimiter back and look for it again with the next chunk.
      this.pending = Buffer.concat([this.delimiter, this.pending]);
      this.state = 'preamble';
      return false;
    }
    const next = this.pending.subarray(0, 2).toString('latin1');
    this.pending = this.pending.subarray(2);
    if (next === '--') this.state = 'done';
    else if (next === '\r\n') this.state = 'head';
    else throw errors.badRequest('Malformed multipart body');
    return true;
  }

  private startPart(head: string): void {
    const { name, filename, contentType } = partHead(head);
    this.part = { name, sink: filename === undefined ? undefined : this.handlers.file(name, filename, contentType), text: [], textBytes: 0 };
  }

  private deliver(bytes: Buffer): boolean {
    const part = this.part;
    if (!part) return true;
    if (part.sink) return part.sink.write(Buffer.from(bytes));
    part.textBytes += bytes.length;
    if (part.textBytes > FIELD_LIMIT) throw errors.badRequest('Malformed multipart body');
    part.text.push(Buffer.from(bytes));
    return true;
  }

  private endPart(): void {
    const part = this.part;
    this.part = undefined;
    if (!part) return;
    if (part.sink) part.sink.end();
    else this.handlers.field(part.name, Buffer.concat(part.text).toString('utf8'));
  }
}
