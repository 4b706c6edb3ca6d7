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

  return new Promise<ReceivedFile>((resolve, reject) => {
    let file: { name: string; contentType: string; key: string; stream: Readable; stored: Promise<number> } | undefined;
    let failure: { error: unknown } | undefined;
    let settled = false;
    /** Bytes of the body so far, and whether it has all arrived. */
    let total = 0;
    let ended = false;

    /** Refuses the upload: what is stored of it goes, and the rest of the body is read and dropped
     * before the answer (clients send a whole body before they read an answer, and a connection
     * closed under a sender loses the answer); `now` answers at once and closes the connection. */
    const fail = (error: unknown, now = false) => {
      if (!failure) {
        failure = { error };
        body.resume();
        // Not within busboy's own call that reported the failure (it goes on using its part).
        queueMicrotask(() => {
          parser.destroy();
          if (!file) return;
          const { key, stream, stored } = file;
          stream.destroy();
          // A file stored in full before the failure goes too.
          stored.then(() => storage.delete(key), () => undefined).catch((cause: unknown) => log.error({ err: cause, key }, 'removing a refused upload failed'));
        });
      }
      if (now) exchange.closeConnection = true;
      settle();
    };
    /** Answers a failure once the body has been read (or at once, when cut off). */
    const settle = () => {
      if (settled || !failure || !(ended || exchange.closeConnection)) return;
      settled = true;
      reject(failure.error);
    };

    /** An image's type, read from its first bytes (Zulip decides so: clients may name none, or
     * the wrong one), while the parser goes on; the upload's end waits for it. */
    let sniffing: Promise<void> = Promise.resolve();
    const store = (stream: Readable, name: string, contentType: string, key: string) => {
      file = { name, contentType, key, stream, stored: storage.put(key, stream, contentType) };
      file.stored.catch((error: unknown) => fail(error));
    };
    parser.on('file', (_field, stream, info) => {
      const name = info.filename ?? '';
      stream.on('limit', () => fail(errors.fileTooLarge(limits.maxMib)));
      // Its errors (a body cut short) reach the upload through the parser and `stored`.
      stream.on('error', () => undefined);
      if ('keyFor' in limits) return store(stream, name, info.mimeType === '' ? 'application/octet-stream' : info.mimeType, limits.keyFor(name));
      sniffing = fileTypeStream(stream, { sampleSize: SNIFF_BYTES }).then(
        (typed) => {
          // Refused meanwhile (a second file, the client gone): nothing is stored.
          if (failure) return void typed.resume();
          const contentType = typed.fileType?.mime;
          const extension = contentType === undefined ? undefined : IMAGE_TYPES[contentType];
          if (contentType === undefined || extension === undefined) {
            typed.resume();
            return fail(errors.badRequest('Invalid image format'));
          }
          store(typed, name, contentType, limits.imageKeyFor(extension));
        },
        (error: unknown) => fail(error),
      );
    });
    parser.on('filesLimit', () => fail(errors.oneFileOnly()));
    parser.on('error', () => fail(errors.badRequest('Malformed multipart body')));
    parser.on('close', () =>
      void sniffing.then(() => {
        if (failure) return settle();
        if (!file) return fail(errors.noFileGiven());
        const { name, contentType, key, stored } = file;
        stored.then((size) => {
          if (!failure) {
            settled = true;
            resolve({ name, contentType, key, size });
          }
        }, (error: unknown) => fail(error));
      }),
    );
    parser.on('drain', () => body.resume());

    abortSignal(exchange).addEventListener('abort', () => fail(new Error('client went away during the upload'), true));
    body.consume((chunk, isLast) => {
      total += chunk.length;
      ended = isLast;
      if (declared === undefined && total > maxBytes + FRAMING_BYTES) fail(errors.fileTooLarge(limits.maxMib), true);
      else if (failure) settle();
      else {
        // Busboy keeps references to what it is given: copy the connection's memory.
        const flowing = parser.write(Buffer.from(chunk));
        if (isLast) parser.end();
        return flowing;
      }
      return true;
    });
  });
}
