// An S3-compatible server on loopback (s3rver) with one bucket, in a temporary directory, for the
// tests of the S3 blob store; `env` is the configuration that points the service at it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface LocalS3 {
  /** BLOB_STORE=s3 and the S3_* settings of this server and bucket. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(bucket: string): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-s3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  return {
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
