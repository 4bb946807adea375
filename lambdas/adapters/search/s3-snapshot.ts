// Index snapshots in S3 (AWS): the indexer Lambda writes one object; search Lambdas read it at
// cold start and catch up from the table's change feed since the snapshot's cursor.
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SnapshotStore } from '../../ports/search-index';

export function s3SnapshotStore(s3: S3Client, bucket: string, key: string): SnapshotStore {
  return {
    async load() {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!out.Body) return null;
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    async save(data) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentType: 'application/gzip' }));
    },
  };
}
