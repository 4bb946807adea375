// Index snapshots in S3 (AWS): the indexer Lambda writes one object; search Lambdas read it at
// cold start and catch up from the table's change feed since the snapshot's cursor. The S3
// client signs, retries (5xx, throttling, network errors) and reads S3's errors.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { SnapshotStore } from '../../ports/search-index';
import { adoptClient, withoutSdkLogging, type AwsClients } from '../clients';

/** The snapshot store in `bucket` over a new S3 client, which joins the shared clients (tracing captures it, dispose destroys it). */
export function createS3SnapshotStore(clients: AwsClients, region: string, bucket: string, key: string): SnapshotStore {
  return s3SnapshotStore(adoptClient(clients, withoutSdkLogging(new S3Client({ region }))), bucket, key);
}

export function s3SnapshotStore(s3: S3Client, bucket: string, key: string): SnapshotStore {
  return {
    async load() {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : null;
      } catch (error) {
        // No snapshot yet: the index builds from the table.
        if ((error as Error).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    async save(data) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentType: 'application/gzip' }));
    },
  };
}
