// Search on Amazon OpenSearch Service (`-c pds:search=opensearch`): a managed domain with
// fine-grained access control, and an indexer fed by the table's stream. Search Lambdas query
// the domain (PDS_SEARCH_ENDPOINT) instead of loading an index snapshot. Why a domain and not a
// Serverless collection (cost, and the engine features the adapter uses): docs/search-scale.md.
//
// Access: the domain's resource policy lets only the indexer's and the searching functions'
// roles call it; inside, fine-grained access control makes the indexer's role the master user
// and the indexer maps the searching roles to the built-in read-only role (`readall`) before
// its first write, so a search function can read and never write.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { ArnPrincipal, Effect, type IRole, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type CfnDomain, Domain, EngineVersion, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../lambdas/topology/env';
import { SEARCH_INDEX_NAME, SEARCH_INDEXED_KEY_PREFIXES } from '../lambdas/topology/search';
import { nodeFunction } from './node-function';
import { acknowledge } from './audit';

export interface OpenSearchSearchProps {
  /** The single table; its stream (keys only) feeds the indexer. */
  table: ITable;
  /** Module of the indexer worker (lambdas/workers/search-opensearch-indexer.ts). */
  indexerEntry: string;
  /** The data environment (table name) every Lambda gets. */
  environment: Record<string, string>;
  /** Functions that search: they get the endpoint and read-only access. */
  readers: IFunction[];
  removalPolicy?: RemovalPolicy;
}

/** Sizing for the crossover in docs/search-scale.md (up to about 5 million products and 300 searches/s). */
export const OPENSEARCH_SIZING = {
  dataNodes: 2,
  instanceType: 'm7g.large.search',
  volumeGiB: 50,
} as const;

export class OpenSearchSearch extends Construct {
  readonly domain: Domain;
  readonly indexer: NodejsFunction;
  /** Stream batches the indexer failed on every retry (their shard and sequence numbers). */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: OpenSearchSearchProps) {
    super(scope, id);
    this.indexer = nodeFunction(this, 'IndexerFn', {
      entry: props.indexerEntry,
      description: 'Search indexer: writes the products and listings a stream batch names to OpenSearch in bulk',
      memorySize: 1024,
      timeoutSeconds: 120,
      environment: { ...props.environment },
    });
    const indexerRole = this.indexer.role!;
    // Functions of one permission set share a role (lib/function-roles.ts): each role once.
    const readerRoles = [...new Set(props.readers.map((reader) => reader.role!))];

    const { domain, domainArn } = this.createDomain(indexerRole, readerRoles, props.removalPolicy);
    this.domain = domain;
    const endpoint = `https://${this.domain.domainEndpoint}`;
    this.domain.grantReadWrite(this.indexer);
    this.indexer.addEnvironment(ENV.searchEndpoint, endpoint);
    this.indexer.addEnvironment(ENV.searchReaderRoles, readerRoles.map((role) => role.roleArn).join(','));
    for (const reader of props.readers) {
      // Searches are POSTs to the index's _search: read-only inside the domain (the readall role).
      reader.addToRolePolicy(
        new PolicyStatement({
          actions: ['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost'],
          resources: [`${domainArn}/${SEARCH_INDEX_NAME}`, `${domainArn}/${SEARCH_INDEX_NAME}/*`],
        }),
      );
      (reader as NodejsFunction).addEnvironment?.(ENV.searchEndpoint, endpoint);
    }

    this.deadLetterQueue = new Queue(this, 'IndexerDlq', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.deadLetterQueue, {
      'AwsSolutions-SQS3':
        "It is a dead-letter queue: the stream event source's on-failure destination (cdk-nag recognises only SQS redrive policies).",
    });
    props.table.grantReadData(this.indexer);
    this.indexer.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(2),
        parallelizationFactor: 2,
        // A failing batch is halved until the bad record is alone, then its place goes to the DLQ.
        retryAttempts: 6,
        bisectBatchOnError: true,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: {
              Keys: { pk: { S: SEARCH_INDEXED_KEY_PREFIXES.flatMap((prefix) => FilterRule.beginsWith(prefix)) } },
            },
          }),
        ],
      }),
    );
  }

  /** The domain, its resource policy (these roles only) and the audit's answers about it; and its ARN as policies name it. */
  private createDomain(
    indexerRole: IRole,
    readerRoles: IRole[],
    removalPolicy?: RemovalPolicy,
  ): { domain: Domain; domainArn: string } {
    const stack = Stack.of(this);
    // Named, so its own access policy can name it (a generated name would refer to itself).
    const domainName = `${stack.stackName
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')
      .slice(0, 21)}-search`;
    const domainArn = stack.formatArn({ service: 'es', resource: 'domain', resourceName: domainName });
    const domain = new Domain(this, 'Domain', {
      domainName,
      version: EngineVersion.OPENSEARCH_2_19,
      capacity: {
        dataNodes: OPENSEARCH_SIZING.dataNodes,
        dataNodeInstanceType: OPENSEARCH_SIZING.instanceType,
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness: { enabled: true, availabilityZoneCount: 2 },
      ebs: { volumeSize: OPENSEARCH_SIZING.volumeGiB, volumeType: EbsDeviceVolumeType.GP3 },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2,
      fineGrainedAccessControl: { masterUserArn: indexerRole.roleArn },
      logging: { slowSearchLogEnabled: true, appLogEnabled: true, slowIndexLogEnabled: true },
      // The index is a copy of the table: a new domain is filled again from the table.
      removalPolicy: removalPolicy ?? RemovalPolicy.DESTROY,
    });
    // Only these roles reach the domain at all; fine-grained access decides what each may do. Set
    // on the resource itself: the construct's addAccessPolicies would add a custom-resource Lambda.
    (domain.node.defaultChild as CfnDomain).accessPolicies = new PolicyDocument({
      statements: [
        new PolicyStatement({
          effect: Effect.ALLOW,
          principals: [indexerRole, ...readerRoles].map((role) => new ArnPrincipal(role.roleArn)),
          actions: ['es:ESHttp*'],
          resources: [`${domainArn}/*`],
        }),
      ],
    }).toJSON();
    acknowledge(domain, {
      'AwsSolutions-OS1':
        'Not in a VPC: the functions that use it run outside one (a VPC would put NAT gateways in front of every page fetch). Reaching it takes a SigV4 signature of one of the roles its resource policy names, over TLS 1.2, and fine-grained access control inside.',
      'AwsSolutions-OS3':
        'Access is granted to IAM roles (the indexer and the searching functions), not to IP addresses: Lambda has no fixed source address.',
      'AwsSolutions-OS4':
        'Two data nodes at the sizing of docs/search-scale.md; dedicated master nodes (three more instances) pay off from about ten data nodes or when the cluster must survive a master election under load. Grow OPENSEARCH_SIZING with them.',
    });
    return { domain, domainArn };
  }
}
