// Receiving an upload: the multipart body streamed into the file storage as it arrives (never
// whole in memory), the file's size checked on the way, the connection paused while the disk
// catches up. Nothing is kept of a refused or interrupted upload.
import { PassThrough } from 'node:stream';
import { errors } from '../errors.js';
import type { FileStorage } from '../files/storage.js';
import { boundaryOf, MultipartParser } from './multipart.js';
import type { Exchange } from './response.js';

export interface ReceivedFile {
  /** The name the client gave the file. */
  name: string;
  contentType: string;
  /** Where it is stored. */
  key: string;
  size: number;
}

export interface UploadLimits {
  /** The largest file accepted, in MiB. */
  maxMib: number;
  /** The storage key for a file of this name. */
  keyFor(name: string): string;
}

/** An upload's body from the moment its request arrives: uWS drops body data that no handler
 * takes, and the upload is authenticated (asynchronously) before it is read, so the first chunks
 * are kept here and the connection paused until the receiver takes over. */
export class HeldBody {
  private readonly early: { chunk: Buffer; isLast: boolean }[] = [];
  private consumer: ((chunk: Uint8Array, isLast: boolean) => boolean) | undefined;
  /** uWS's resume also touches a connection that was never paused: resume only a paused one. */
  private paused = false;

  constructor(private readonly exchange: Exchange) {
    exchange.res.onData((chunk, isLast) => {
      if (this.consumer) {
        if (!this.consumer(new Uint8Array(chunk), isLast)) this.pause();
        return;
      }
      this.early.push({ chunk: Buffer.from(chunk.slice(0)), isLast });
      if (!isLast) this.pause();
    });
  }

  private pause(): void {
    // Data may still arrive after the answer went out (a refused upload): the response is gone.
    if (this.exchange.aborted || this.exchange.done) return;
    this.paused = true;
    this.exchange.res.pause();
  }

  /** Hands the body to `consumer` (false from it: pause until `resume`). */
  consume(consumer: (chunk: Uint8Array, isLast: boolean) => boolean): void {
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

export function receiveUpload(exchange: Exchange, body: HeldBody, head: { contentType: string; contentLength: string }, storage: FileStorage, limits: UploadLimits): Promise<ReceivedFile> {
  const boundary = boundaryOf(head.contentType);
  const maxBytes = limits.maxMib * MIB;
  const refuse = (error: Error) => {
    // The body is not read: close the connection rather than wait for it.
    exchange.closeConnection = true;
    return Promise.reject(error);
  };
  if (boundary === undefined) return refuse(errors.noFileGiven());
  if (head.contentLength !== '' && Number(head.contentLength) > maxBytes + FRAMING_BYTES) return refuse(errors.fileTooLarge(limits.maxMib));

  return new Promise<ReceivedFile>((resolve, reject) => {
    let file: { name: string; contentType: string; key: string; sink: PassThrough; stored: Promise<number> } | undefined;
    let received = 0;
    let total = 0;
    let failure: { error: unknown } | undefined;

    /** Refuses the upload: what is stored of it goes; the rest of the body is read and dropped (up to
     * the limit, else the connection closes), so the client gets the answer rather than a reset. */
    const fail = (error: unknown, now = false) => {
      if (!failure) {
        failure = { error };
        if (file) {
          file.sink.destroy(error instanceof Error ? error : new Error(String(error)));
          const key = file.key;
          // A file stored in full before the failure (a second file, a bad ending) goes too.
          file.stored.then(() => storage.delete(key), () => undefined).catch((cause: unknown) => console.error('removing a refused upload failed', cause));
        }
      }
      if (now) {
        exchange.closeConnection = true;
        reject(failure.error);
      }
    };

    const parser = new MultipartParser(boundary, {
      field: () => undefined,
      file(_field, name, contentType) {
        if (file) throw errors.oneFileOnly();
        const sink = new PassThrough();
        sink.on('drain', () => body.resume());
        // Its errors reach the upload through `stored`; once stored, destroying it is only cleanup.
        sink.on('error', () => undefined);
        const key = limits.keyFor(name);
        const type = contentType === '' ? 'application/octet-stream' : contentType;
        file = { name, contentType: type, key, sink, stored: storage.put(key, sink, type) };
        file.stored.catch((error: unknown) => fail(error));
        return {
          write(chunk) {
            received += chunk.length;
            if (received > maxBytes) throw errors.fileTooLarge(limits.maxMib);
            return sink.write(chunk);
          },
          end: () => sink.end(),
        };
      },
    });

    exchange.abort.signal.addEventListener('abort', () => fail(new Error('client went away during the upload'), true));
    body.consume((chunk, isLast) => {
      total += chunk.length;
      if (failure) {
        if (isLast || total > maxBytes + FRAMING_BYTES) fail(failure.error, true);
        return true;
      }
      try {
        const flowing = parser.write(chunk);
        if (!isLast) return flowing;
        parser.end();
        if (!file) throw errors.noFileGiven();
        const { name, contentType, key, stored } = file;
        stored.then((size) => resolve({ name, contentType, key, size }), (error: unknown) => fail(error, true));
      } catch (error) {
        fail(error, isLast);
      }
      return true;
    });
  });
}
