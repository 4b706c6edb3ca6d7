// The S3-compatible backend (Amazon S3, MinIO, Ceph, R2, …), as Zulip's S3UploadBackend: one
// object per key in one bucket, the content type in the object's metadata. A PUT is atomic, so a
// reader never sees a partial file, and a stream that fails before its end stores nothing (nothing
// is sent before its end). Every
// node of a cluster reads and writes the same bucket, so a file uploaded through one node is
// served by all (the data directory's backend keeps files on one machine).
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { Client, S3Error } from 'minio';
import type { S3Settings } from '../config.js';
import type { FileStorage, StoredFile } from './storage.js';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The error codes S3 answers for an object that is not there. */
function isMissing(error: unknown): boolean {
  return error instanceof S3Error && (error.code === 'NotFound' || error.code === 'NoSuchKey');
}

export class S3FileStorage implements FileStorage {
  private constructor(
    private readonly client: Client,
    private readonly bucket: string,
  ) {}

  /** Connects and checks that the bucket exists (an operator creates it, as for Zulip). */
  static async connect(settings: S3Settings): Promise<S3FileStorage> {
    const url = new URL(settings.endpoint);
    const useSSL = url.protocol === 'https:';
    const client = new Client({
      endPoint: url.hostname,
      port: url.port === '' ? (useSSL ? 443 : 80) : Number(url.port),
      useSSL,
      region: settings.region,
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      pathStyle: true,
    });
    if (!(await client.bucketExists(settings.bucket))) throw new Error(`the S3 bucket '${settings.bucket}' does not exist at ${settings.endpoint}`);
    return new S3FileStorage(client, settings.bucket);
  }

  /** The file is read whole before it is sent (one PUT with its length, as the client library
   * does for any file below its part size): uploads are bounded by the upload limits. */
  async put(key: string, body: Readable, contentType: string): Promise<number> {
    const bytes = await buffer(body);
    await this.client.putObject(this.bucket, key, bytes, bytes.length, { 'Content-Type': contentType });
    return bytes.length;
  }

  async open(key: string): Promise<StoredFile | undefined> {
    try {
      const info = await this.client.statObject(this.bucket, key);
      const stream = await this.client.getObject(this.bucket, key);
      const contentType = (info.metaData as Record<string, unknown>)['content-type'];
      return { stream, size: info.size, contentType: typeof contentType === 'string' ? contentType : DEFAULT_CONTENT_TYPE };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.removeObject(this.bucket, key);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.statObject(this.bucket, key);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}
