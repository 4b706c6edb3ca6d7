// Where uploaded files live: one interface for Zulip's two kinds of backend, the data directory
// (local.ts, the default) and an S3-compatible bucket (s3.ts, PARLEY_S3_BUCKET: what a cluster
// needs). Keys are path IDs (`<realm>/<bucket>/<random>/<name>`); a backend stores bytes and a
// content type under a key and gives them back, nothing else.
import type { Readable } from 'node:stream';

export interface StoredFile {
  /** The bytes; the reader consumes or destroys it. */
  stream: Readable;
  size: number;
  contentType: string;
}

export interface FileStorage {
  /** Stores the stream's bytes under `key`, resolving with their number once they are durable
   * (a reader never sees a partial file); a stream that errors stores nothing. */
  put(key: string, body: Readable, contentType: string): Promise<number>;
  /** The file under `key`, or undefined when there is none. */
  open(key: string): Promise<StoredFile | undefined>;
  /** Removes the file under `key`; removing what is not there is no error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
