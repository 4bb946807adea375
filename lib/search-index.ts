// Search on AWS: search Lambdas answer from an in-memory index loaded at cold start from a
// snapshot in S3, then catch up from the table's change feed (gsi2) since the snapshot's cursor,
// at most once a second; never a scan per query. The snapshot is kept current by one indexer
// Lambda woken by the table's stream (keys only, products and listings), which catches up the
// same way and writes the snapshot back. Reserved concurrency 1: one writer of the object.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition, type CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENV } from '../lambdas/topology/env';
import { nodeFunction } from './node-function';
import { acknowledge } from './audit';

export interface SearchIndexProps {
  /** The single table; it must have a stream (keys only is enough: the stream only wakes the indexer). */
  table: ITable;
  /** Module of the indexer worker (lambdas/workers/search-indexer.ts). */
  indexerEntry: string;
  /** The data environment (table name) every Lambda gets. */
  environment: Record<string, string>;
  /** Functions that search: they read the snapshot and learn the bucket's name. */
  readers: IFunction[];
  removalPolicy?: RemovalPolicy;
}

export class SearchIndex extends Construct {
  readonly bucket: Bucket;
  readonly indexer: NodejsFunction;

  constructor(scope: Construct, id: string, props: SearchIndexProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Snapshots', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // The snapshot is a cache of the table: losing it costs one catch-up from the feed.
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
      lifecycleRules: [
        { noncurrentVersionExpiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    acknowledge(this.bucket, {
      'AwsSolutions-S1':
        'A cache of the table (one object, rewritten by the indexer, read by search Lambdas through their roles): server access logs would record only those two roles; a lost snapshot costs one catch-up from the table.',
    });
    this.indexer = nodeFunction(this, 'IndexerFn', {
      entry: props.indexerEntry,
      description: 'Search indexer: catches up with the catalog change feed and writes the index snapshot to S3',
      // Building and serialising a 100,000-product index takes about 10 s of one vCPU and ~1 GB.
      memorySize: 3008,
      timeoutSeconds: 300,
      environment: { ...props.environment, [ENV.searchSnapshotBucket]: this.bucket.bucketName },
    });
    (this.indexer.node.defaultChild as CfnFunction).reservedConcurrentExecutions = 1;
    props.table.grantReadData(this.indexer);
    this.bucket.grantReadWrite(this.indexer);
    this.indexer.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 1000,
        // Up to 10 s of writes per wake-up: the snapshot trails the table by about that.
        maxBatchingWindow: Duration.seconds(10),
        parallelizationFactor: 1,
        retryAttempts: 5,
        bisectBatchOnError: false,
        reportBatchItemFailures: false,
        filters: [
          FilterCriteria.filter({
            dynamodb: {
              Keys: { pk: { S: [...FilterRule.beginsWith('PRODUCT#'), ...FilterRule.beginsWith('LISTING#')] } },
            },
          }),
        ],
      }),
    );
    for (const reader of props.readers) {
      this.bucket.grantRead(reader);
      (reader as NodejsFunction).addEnvironment?.(ENV.searchSnapshotBucket, this.bucket.bucketName);
    }
  }
}
