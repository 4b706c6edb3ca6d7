// An S3-compatible service on loopback for tests (s3rver, files in a temporary directory), with one
// bucket, and a client of the test's own to look into the bucket.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, S3Error } from 'minio';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';

export interface TestS3 {
  settings: S3Settings;
  /** The object's bytes as text, or undefined when the bucket has no such key. */
  stored(key: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

const CREDENTIALS = 'S3RVER';

export async function startS3(bucket = 'parley-uploads'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  const settings: S3Settings = { endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', bucket, accessKey: CREDENTIALS, secretKey: CREDENTIALS };
  const client = new Client({ endPoint: '127.0.0.1', port, useSSL: false, region: settings.region, accessKey: CREDENTIALS, secretKey: CREDENTIALS, pathStyle: true });
  return {
    settings,
    async stored(key) {
      try {
        const stream = await client.getObject(bucket, key);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      } catch (error) {
        if (error instanceof S3Error && error.code === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
