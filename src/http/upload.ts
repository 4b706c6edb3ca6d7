// Receiving an upload: the multipart body (parsed by busboy) streamed into the file storage as it
// arrives, never whole in memory, its file's size checked on the way, the connection paused while
// the disk catches up. Nothing is kept of a refused or interrupted upload.
import type { Readable } from 'node:stream';
import { fileTypeStream } from 'file-type';
import busboy from 'busboy';
import { errors } from '../errors.js';
import type { FileStorage } from '../files/storage.js';
import type { Logger } from '../ops/log.js';
import { abortSignal, type Exchange } from './response.js';

export interface ReceivedFile {
  /** The name the client gave the file. */
  name: string;
  contentType: string;
  /** Where it is stored. */
  key: string;
  size: number;
}

/** The largest file accepted (MiB), and where it is stored: a file of whatever type by its name,
 * or only an image (custom emoji, avatars: another type is refused before it is stored) by its
 * type's extension. */
export type UploadLimits = { maxMib: number } & ({ keyFor(name: string): string } | { imageKeyFor(extension: string): string });

/** How much of an image is read to tell its type. */
const SNIFF_BYTES = 4100;

/** The image types Zulip accepts for custom emoji and avatars, with their file extensions. */
const IMAGE_TYPES: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/gif': 'gif', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

type Consumer = (chunk: Uint8Array, isLast: boolean) => boolean;

/** An upload's body from the moment its request arrives: uWS drops body data that no handler
 * takes, and the upload is authenticated (asynchronously) before it is read, so the first chunks
 * are kept here and the connection paused until the receiver takes over. */
export class HeldBody {
  private readonly early: { chunk: Buffer; isLast: boolean }[] = [];
  private consumer: Consumer | undefined;
  /** uWS's resume also touches a connection that was never paused: resume only a paused one. */
  private paused = false;

  constructor(private readonly exchange: Exchange) {
    exchange.res.onData((chunk, isLast) => {
      if (this.consumer) {
        // Never pause after the last chunk: nothing would resume the connection's next request.
        if (!this.consumer(new Uint8Array(chunk), isLast) && !isLast) this.pause();
        return;
      }
      this.early.push({ chunk: Buffer.from(chunk.slice(0)), isLast });
      if (!isLast) this.pause();
    });
  }

  private pause(): void {
    // uWS goes on handing over the rest of a body after its answer went out: that response is gone.
    if (this.exchange.aborted || this.exchange.done) return;
    this.paused = true;
    this.exchange.res.pause();
  }

  /** Hands the body to `consumer`: the chunk is the connection's memory, valid during the call
   * only; false from the consumer pauses the connection until `resume`. */
  consume(consumer: Consumer): void {
    this.consumer = consumer;
    let flowing = true;
    for (const { chunk, isLast } of this.early.splice(0)) flowing = consumer(chunk, isLast);
    if (flowing) this.resume();
  }

  resume(): void {
    if (!this.paused || this.exchange.aborted || this.exchange.done) return;
    this.paused = false;
    this.exchange.res.resume();
  }
}

/** Room for the multipart framing and small fields around the file in a declared Content-Length. */
const FRAMING_BYTES = 1024 * 1024;
const MIB = 1024 * 1024;

/** Busboy's limits besides the file's size (whose limit busboy reports on reaching it: a file may
 * be one byte under it): one file, and a few small fields and part headers. */
const PART_LIMITS = { files: 1, fields: 16, fieldSize: 64 * 1024, headerPairs: 16 };

/** Where an upload is stored: its part's name and type, its key, the part's stream, and the size
 * once stored. */
interface Stored {
  name: string;
  contentType: string;
  key: string;
  stream: Readable;
  stored: Promise<number>;
}

/** Receives the one file of a multipart body into the file storage; rejects with the API error of
 * the first rule it breaks, with nothing of it stored. */
export function receiveUpload(exchange: Exchange, body: HeldBody, head: { contentType: string; contentLength: string }, storage: FileStorage, limits: UploadLimits, log: Logger): Promise<ReceivedFile> {
  const maxBytes = limits.maxMib * MIB;
  const refuse = (error: Error) => {
    // The body is not read: close the connection rather than wait for it.
    exchange.closeConnection = true;
    return Promise.reject(error);
  };
  const declared = head.contentLength === '' ? undefined : Number(head.contentLength);
  if (declared !== undefined && declared > maxBytes + FRAMING_BYTES) return refuse(errors.fileTooLarge(limits.maxMib));
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': head.contentType }, defParamCharset: 'utf8', limits: { ...PART_LIMITS, fileSize: maxBytes + 1 } });
  } catch {
    return refuse(errors.noFileGiven());
  }
  return new Promise<ReceivedFile>((resolve, reject) => new Reception({ exchange, body, storage, limits, log, parser, declared, maxBytes, resolve, reject }).start());
}

interface ReceptionParts {
  exchange: Exchange;
  body: HeldBody;
  storage: FileStorage;
  limits: UploadLimits;
  log: Logger;
  parser: busboy.Busboy;
  /** The body's declared length, if it has one. */
  declared: number | undefined;
  maxBytes: number;
  resolve(file: ReceivedFile): void;
  reject(error: unknown): void;
}

/** One upload as it arrives: the body fed to the parser, the file's part stored as it streams. */
class Reception {
  private file: Stored | undefined;
  private failure: { error: unknown } | undefined;
  private settled = false;
  /** Bytes of the body so far, and whether it has all arrived. */
  private total = 0;
  private ended = false;
  /** An image's type, read from its first bytes (Zulip decides so: clients may name none, or the
   * wrong one), while the parser goes on; the upload's end waits for it. */
  private sniffing: Promise<void> = Promise.resolve();

  constructor(private readonly parts: ReceptionParts) {}

  start(): void {
    const { parser, exchange, body, limits } = this.parts;
    parser.on('file', (_field, stream, info) => this.onFile(stream, info.filename ?? '', info.mimeType));
    parser.on('filesLimit', () => this.fail(errors.oneFileOnly()));
    parser.on('error', () => this.fail(errors.badRequest('Malformed multipart body')));
    parser.on('close', () => void this.sniffing.then(() => this.onParsed()));
    parser.on('drain', () => body.resume());
    abortSignal(exchange).addEventListener('abort', () => this.fail(new Error('client went away during the upload'), true));
    body.consume((chunk, isLast) => {
      this.total += chunk.length;
      this.ended = isLast;
      if (this.parts.declared === undefined && this.total > this.parts.maxBytes + FRAMING_BYTES) this.fail(errors.fileTooLarge(limits.maxMib), true);
      else if (this.failure) this.settle();
      else {
        // Busboy keeps references to what it is given: copy the connection's memory.
        const flowing = parser.write(Buffer.from(chunk));
        if (isLast) parser.end();
        return flowing;
      }
      return true;
    });
  }

  private onFile(stream: Readable, name: string, mimeType: string): void {
    const { limits } = this.parts;
    stream.on('limit', () => this.fail(errors.fileTooLarge(limits.maxMib)));
    // Its errors (a body cut short) reach the upload through the parser and `stored`.
    stream.on('error', () => undefined);
    if ('keyFor' in limits) return this.store(stream, name, mimeType === '' ? 'application/octet-stream' : mimeType, limits.keyFor(name));
    this.sniffing = fileTypeStream(stream, { sampleSize: SNIFF_BYTES }).then(
      (typed) => {
        // Refused meanwhile (a second file, the client gone): nothing is stored.
        if (this.failure) return void typed.resume();
        const contentType = typed.fileType?.mime;
        const extension = contentType === undefined ? undefined : IMAGE_TYPES[contentType];
        if (contentType === undefined || extension === undefined) {
          typed.resume();
          return this.fail(errors.badRequest('Invalid image format'));
        }
        this.store(typed, name, contentType, limits.imageKeyFor(extension));
      },
      (error: unknown) => this.fail(error),
    );
  }

  private store(stream: Readable, name: string, contentType: string, key: string): void {
    this.file = { name, contentType, key, stream, stored: this.parts.storage.put(key, stream, contentType) };
    this.file.stored.catch((error: unknown) => this.fail(error));
  }

  /** The body is parsed: the file, once stored, is the answer. */
  private onParsed(): void {
    if (this.failure) return this.settle();
    if (!this.file) return this.fail(errors.noFileGiven());
    const { name, contentType, key, stored } = this.file;
    stored.then(
      (size) => {
        if (this.failure) return;
        this.settled = true;
        this.parts.resolve({ name, contentType, key, size });
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** Refuses the upload: what is stored of it goes, and the rest of the body is read and dropped
   * before the answer (clients send a whole body before they read an answer, and a connection
   * closed under a sender loses the answer); `now` answers at once and closes the connection. */
  private fail(error: unknown, now = false): void {
    if (!this.failure) {
      this.failure = { error };
      this.parts.body.resume();
      // Not within busboy's own call that reported the failure (it goes on using its part).
      queueMicrotask(() => this.discard());
    }
    if (now) this.parts.exchange.closeConnection = true;
    this.settle();
  }

  private discard(): void {
    const { parser, storage, log } = this.parts;
    parser.destroy();
    if (!this.file) return;
    const { key, stream, stored } = this.file;
    stream.destroy();
    // A file stored in full before the failure goes too.
    stored.then(() => storage.delete(key), () => undefined).catch((cause: unknown) => log.error({ err: cause, key }, 'removing a refused upload failed'));
  }

  /** Answers a failure once the body has been read (or at once, when cut off). */
  private settle(): void {
    if (this.settled || !this.failure || !(this.ended || this.parts.exchange.closeConnection)) return;
    this.settled = true;
    this.parts.reject(this.failure.error);
  }
}
