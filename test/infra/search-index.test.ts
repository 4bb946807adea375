// The search index on AWS, asserted on the synthesized template: a snapshot bucket, an indexer
// woken by the table's stream (keys only, products and listings) with one writer at a time, and
// every search-scoped function reading the snapshot by its bucket's name.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProductDataStack } from '../../lib/product-data-stack';
import { ENV } from '../../lambdas/topology/env';
import { ROUTES } from '../../lambdas/topology/routes';
import { fixtureStack } from './helpers';
import { actionsOf, findCycle, mentions, resourcesOf, roleOfFunction, statementsOfRole } from './template-queries';

let stack: ProductDataStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = fixtureStack());
}, 60_000);

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('search index on AWS', () => {
  it('the table streams keys only', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'KEYS_ONLY' } });
  });

  it('keeps snapshots in a private, encrypted, TLS-only bucket', () => {
    const bucketId = logicalIdOf(stack.searchIndex!.bucket);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    const policies = Object.values(resourcesOf(template, 'AWS::S3::BucketPolicy')).filter((p) =>
      mentions(p.Properties!.Bucket, bucketId),
    );
    expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
  });

  it('one indexer at a time, woken by product and listing changes in batches', () => {
    const indexerId = logicalIdOf(stack.searchIndex!.indexer);
    const indexer = resourcesOf(template, 'AWS::Lambda::Function')[indexerId];
    expect(indexer.Properties).toMatchObject({
      ReservedConcurrentExecutions: 1,
      MemorySize: 3008,
      Timeout: 300,
      Runtime: 'nodejs22.x',
    });
    expect(
      mentions(
        indexer.Properties!.Environment.Variables[ENV.searchSnapshotBucket],
        logicalIdOf(stack.searchIndex!.bucket),
      ),
    ).toBe(true);
    const tableId = logicalIdOf(stack.table);
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter((m) =>
      mentions(m.Properties!.FunctionName, indexerId),
    );
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0].Properties!;
    expect(mentions(mapping.EventSourceArn, tableId)).toBe(true);
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
    expect(mapping).toMatchObject({
      StartingPosition: 'LATEST',
      BatchSize: 1000,
      MaximumBatchingWindowInSeconds: 10,
      ParallelizationFactor: 1,
    });
    const pattern = JSON.parse(mapping.FilterCriteria.Filters[0].Pattern);
    expect(pattern).toEqual({ dynamodb: { Keys: { pk: { S: [{ prefix: 'PRODUCT#' }, { prefix: 'LISTING#' }] } } } });
  });

  it('the indexer reads the table and writes the snapshot; it never writes the table', () => {
    const indexer = resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(stack.searchIndex!.indexer)];
    const statements = statementsOfRole(template, roleOfFunction(indexer));
    const actions = statements.flatMap(actionsOf);
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
        's3:PutObject',
        's3:GetObject*',
        'dynamodb:GetRecords',
      ]),
    );
    expect(actions.filter((a) => /dynamodb:(Put|Update|Delete|BatchWrite)/.test(a))).toEqual([]);
  });

  it('every search route reads the snapshot by the bucket name in its environment', () => {
    const bucketId = logicalIdOf(stack.searchIndex!.bucket);
    const searchRoutes = ROUTES.filter((route) => route.scope === 'search');
    expect(searchRoutes.length).toBeGreaterThanOrEqual(7);
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const route of searchRoutes) {
      const fn = functions[logicalIdOf(stack.routeFunctions.get(route.operationId)!)];
      expect(
        mentions(fn.Properties!.Environment.Variables[ENV.searchSnapshotBucket], bucketId),
        route.operationId,
      ).toBe(true);
      const statements = statementsOfRole(template, roleOfFunction(fn));
      const reads = statements.filter((s) => mentions(s.Resource, bucketId)).flatMap(actionsOf);
      expect(reads, route.operationId).toEqual(expect.arrayContaining(['s3:GetObject*']));
      expect(
        reads.filter((a) => a.startsWith('s3:Put')),
        route.operationId,
      ).toEqual([]);
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ [ENV.searchSnapshotBucket]: Match.anyValue() }) },
    });
  });

  it('adds no dependency cycle', () => {
    expect(findCycle(template)).toBeUndefined();
  });
});
