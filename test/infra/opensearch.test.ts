// Search on OpenSearch (`-c pds:search=opensearch`), asserted on the synthesized template: the
// domain with fine-grained access (the indexer's role the master user, only the indexer's and
// the searching functions' roles in its resource policy), encrypted and TLS-only; the indexer
// fed by the table's stream with bisected retries and a DLQ; the searching functions with the
// endpoint and read-only HTTP verbs on the index; no snapshot bucket; the alarms.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProductDataStack } from '../../lib/product-data-stack';
import { ENV } from '../../lambdas/topology/env';
import { ROUTES } from '../../lambdas/topology/routes';
import { FIXTURE_QUEUES, FIXTURE_WORKFLOWS, fixtureLayout, synthStack } from './helpers';
import { actionsOf, findCycle, resourcesOf, roleOfFunction, statementsOfRole } from './template-queries';

let stack: ProductDataStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = synthStack({
    sources: fixtureLayout(),
    topology: { routes: ROUTES, queues: FIXTURE_QUEUES, workflows: FIXTURE_WORKFLOWS },
    search: 'opensearch',
  }));
}, 60_000);

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const searchRouteIds = () =>
  ROUTES.filter((route) => route.scope === 'search').map((route) =>
    logicalIdOf(stack.routeFunctions.get(route.operationId)!),
  );

describe('search on OpenSearch', () => {
  it('makes the domain instead of the snapshot bucket, encrypted, TLS-only, with fine-grained access', () => {
    expect(stack.searchIndex).toBeUndefined();
    expect(Object.keys(resourcesOf(template, 'AWS::S3::Bucket'))).toEqual([]);
    const domains = Object.values(resourcesOf(template, 'AWS::OpenSearchService::Domain'));
    expect(domains).toHaveLength(1);
    const props = domains[0].Properties!;
    const indexerRole = roleOfFunction(
      resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(stack.openSearch!.indexer)],
    );
    expect(props.AdvancedSecurityOptions).toEqual({
      Enabled: true,
      InternalUserDatabaseEnabled: false,
      MasterUserOptions: { MasterUserARN: { 'Fn::GetAtt': [indexerRole, 'Arn'] } },
    });
    expect(props.EncryptionAtRestOptions).toEqual({ Enabled: true });
    expect(props.NodeToNodeEncryptionOptions).toEqual({ Enabled: true });
    expect(props.DomainEndpointOptions).toMatchObject({
      EnforceHTTPS: true,
      TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07',
    });
    // Exactly the indexer and the searching functions may reach it.
    const [statement] = props.AccessPolicies.Statement;
    const principals = (statement.Principal.AWS as Array<{ 'Fn::GetAtt': [string, string] }>).map(
      (p) => p['Fn::GetAtt'][0],
    );
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    const readerRoles = searchRouteIds().map((id) => roleOfFunction(functions[id]));
    expect(principals).toEqual(expect.arrayContaining([indexerRole, ...readerRoles]));
    expect(principals.length).toBeLessThan(Object.keys(functions).length / 2);
    expect(findCycle(template)).toBeUndefined();
  });

  it('gives searching functions the endpoint and read-only verbs on the index, the indexer the roles to map', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const id of searchRouteIds()) {
      const variables = functions[id].Properties!.Environment.Variables;
      expect(variables[ENV.searchEndpoint]).toBeDefined();
      expect(variables[ENV.searchSnapshotBucket]).toBeUndefined();
      const es = statementsOfRole(template, roleOfFunction(functions[id]))
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('es:'));
      expect(es.sort()).toEqual(['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost']);
    }
    const indexer = functions[logicalIdOf(stack.openSearch!.indexer)].Properties!.Environment.Variables;
    expect(JSON.stringify(indexer[ENV.searchReaderRoles])).toContain(roleOfFunction(functions[searchRouteIds()[0]]));
  });

  it('feeds the indexer from the stream with bisected retries and a DLQ, filtered to what search holds', () => {
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter(
      (m) => m.Properties!.FunctionName.Ref === logicalIdOf(stack.openSearch!.indexer),
    );
    expect(mappings).toHaveLength(1);
    const props = mappings[0].Properties!;
    expect(props).toMatchObject({
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 6,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(stack.openSearch!.deadLetterQueue), 'Arn'] } },
      },
    });
    expect(JSON.parse(props.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { Keys: { pk: { S: [{ prefix: 'PRODUCT#' }, { prefix: 'LISTING#' }, { prefix: 'LISTINGGONE#' }] } } },
    });
  });

  it('alarms on the DLQ, the indexer lag and the domain health', () => {
    const keys = [...stack.operability.alarms.alarms.keys()].filter((key) => key.startsWith('search:'));
    expect(keys.sort()).toEqual([
      'search:domain-red',
      'search:domain-storage',
      'search:indexer-dlq',
      'search:indexer-lag',
    ]);
  });

  it('refuses an unknown engine name', () => {
    expect(() =>
      synthStack(
        {
          sources: fixtureLayout(),
          topology: { routes: ROUTES, queues: FIXTURE_QUEUES, workflows: FIXTURE_WORKFLOWS },
        },
        { context: { 'pds:search': 'elastic' } },
      ),
    ).toThrow(/pds:search must be "snapshot" or "opensearch"/);
  });
});
