// CDK assertions on the synthesized template, built from the real route table and fixture
// queues/workflows (every module resolves to a fixture handler, so the stack is independent of
// which handlers exist yet).
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { substitutionKeys } from '../../lib/asl-substitutions';
import { pascal, ProductDataStack, WORKFLOWS_DRIVEN_BY_TASKS, WORKFLOWS_FOR_SCOPE } from '../../lib/product-data-stack';
import { ENV } from '../../lambdas/topology/env';
import { ROUTES } from '../../lambdas/topology/routes';
import { TABLE } from '../../lambdas/topology/table';
import { FIXTURE_QUEUES, FIXTURE_WORKFLOWS, FIXTURES, fixtureLayout, fixtureStack, synthStack } from './helpers';
import { actionsOf, findCycle, mentions, resourcesOf, roleOfFunction, statementsOfRole } from './template-queries';

let stack: ProductDataStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = fixtureStack());
});

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('table', () => {
  it('has pk/sk and both GSIs from TABLE, on-demand, with point-in-time recovery', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  });

  it('expires idempotency records through DynamoDB TTL on TABLE.timeToLive', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: TABLE.timeToLive, Enabled: true },
    });
  });

  it('is retained and deletion-protected by default', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('can be made disposable', () => {
    const { template: disposable } = synthStack({
      sources: fixtureLayout(),
      topology: { routes: ROUTES.slice(0, 1), queues: [], workflows: [] },
      tableRemovalPolicy: RemovalPolicy.DESTROY,
    });
    disposable.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });
});

describe('queues and workers', () => {
  it('gives every queue an encrypted DLQ with the spec redrive count and visibility timeout', () => {
    template.resourceCountIs('AWS::SQS::Queue', FIXTURE_QUEUES.length * 2);
    for (const spec of FIXTURE_QUEUES) {
      const queue = resourcesOf(template, 'AWS::SQS::Queue')[logicalIdOf(stack.queues.get(spec.name)!)];
      const dlqId = logicalIdOf(stack.deadLetterQueues.get(spec.name)!);
      expect(queue.Properties!.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: spec.maxReceiveCount,
      });
      expect(queue.Properties!.VisibilityTimeout).toBe(spec.visibilityTimeoutSeconds);
      expect(queue.Properties!.SqsManagedSseEnabled).toBe(true);
      expect(resourcesOf(template, 'AWS::SQS::Queue')[dlqId].Properties!.SqsManagedSseEnabled).toBe(true);
    }
  });

  it('consumes every queue (and a DLQ with a dlqWorker) with partial batch failures', () => {
    // The search indexer's table-stream mapping is asserted in search-index.test.ts.
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter(
      (m) => !JSON.stringify(m.Properties!.EventSourceArn).includes('StreamArn'),
    );
    const expected = FIXTURE_QUEUES.flatMap((spec) => [
      { queue: stack.queues.get(spec.name)!, worker: spec.worker, spec },
      ...(spec.dlqWorker ? [{ queue: stack.deadLetterQueues.get(spec.name)!, worker: spec.dlqWorker, spec }] : []),
    ]);
    expect(mappings).toHaveLength(expected.length);
    for (const { queue, worker, spec } of expected) {
      const mapping = mappings.find((m) => mentions(m.Properties!.EventSourceArn, logicalIdOf(queue)));
      expect(mapping, `mapping for ${spec.name} -> ${worker}`).toBeDefined();
      expect(mapping!.Properties!.FunctionName).toEqual({ Ref: logicalIdOf(stack.workers.get(worker)!) });
      expect(mapping!.Properties!.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(mapping!.Properties!.BatchSize).toBe(spec.batchSize);
      if (spec.batchSize > 10) expect(mapping!.Properties!.MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
    }
  });

  it('keeps each queue worker within its queue visibility timeout and lets workers answer task tokens', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const spec of FIXTURE_QUEUES) {
      const worker = functions[logicalIdOf(stack.workers.get(spec.worker)!)];
      expect(worker.Properties!.Timeout).toBeLessThanOrEqual(spec.visibilityTimeoutSeconds);
    }
    for (const [name, fn] of stack.workers) {
      const statements = statementsOfRole(template, roleOfFunction(functions[logicalIdOf(fn)]));
      const actions = statements.flatMap(actionsOf);
      expect(actions, name).toEqual(
        expect.arrayContaining(['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat']),
      );
      expect(
        statements.some((s) => mentions(s.Resource, logicalIdOf(stack.table))),
        `${name} table access`,
      ).toBe(true);
    }
  });
});

describe('every Lambda function', () => {
  it('runs Node.js 22+ on arm64 with JSON logs and the table name, without source maps to enable', () => {
    const functions = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'));
    expect(functions.length).toBe(
      stack.routeFunctions.size + stack.workers.size + 1 /* fallback */ + stack.scheduled.size + 1 /* search indexer */,
    );
    for (const [id, fn] of functions) {
      const props = fn.Properties!;
      expect(Number(/^nodejs(\d+)\.x$/.exec(props.Runtime)?.[1]), id).toBeGreaterThanOrEqual(22);
      expect(props.Architectures, id).toEqual(['arm64']);
      expect(props.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON' });
      // The assets carry no source maps (lib/bundle.ts keeps function names instead).
      expect(props.Environment.Variables.NODE_OPTIONS, id).toBeUndefined();
      expect(props.Environment.Variables[ENV.tableName], id).toEqual({ Ref: logicalIdOf(stack.table) });
      expect(props.Handler, id).toBe('index.handler');
    }
  });

  it('gives HTTP functions every queue URL and state machine ARN', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const [operationId, fn] of stack.routeFunctions) {
      const variables = functions[logicalIdOf(fn)].Properties!.Environment.Variables;
      for (const spec of FIXTURE_QUEUES) {
        expect(variables[spec.envVar], operationId).toEqual({ Ref: logicalIdOf(stack.queues.get(spec.name)!) });
      }
      for (const workflow of FIXTURE_WORKFLOWS) {
        expect(variables[workflow.envVar], operationId).toEqual({
          Ref: logicalIdOf(stack.stateMachines.get(workflow.name)!),
        });
      }
    }
  });
});

describe('deploy-time settings', () => {
  it('passes the affiliate link template of the context to every function', () => {
    const app = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        'pds:affiliateLinkTemplate': 'https://links.example/{merchant_id}/{device_id}?u={url}',
      },
      // The default CloudFormation rules run in nag.test.ts (helpers.ts says why).
      builtinCloudFormationValidation: false,
    });
    const withTemplate = new ProductDataStack(app, 'TemplateStack', {
      sources: fixtureLayout(),
      topology: { routes: ROUTES.slice(0, 3), queues: [], workflows: [], schedules: [] },
    });
    const functions = Object.values(resourcesOf(Template.fromStack(withTemplate), 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions)
      expect(fn.Properties!.Environment.Variables[ENV.affiliateLinkTemplate]).toBe(
        'https://links.example/{merchant_id}/{device_id}?u={url}',
      );
    const functionsWithout = Object.values(resourcesOf(template, 'AWS::Lambda::Function'));
    for (const fn of functionsWithout)
      expect(fn.Properties!.Environment.Variables[ENV.affiliateLinkTemplate]).toBeUndefined();
  });
});

describe('cross-workflow grants', () => {
  it("gives a workflow's task workers the ARN of and Start/Stop on each workflow they drive", () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    let checked = 0;
    for (const workflow of FIXTURE_WORKFLOWS) {
      for (const drivenName of WORKFLOWS_DRIVEN_BY_TASKS[workflow.name] ?? []) {
        const driven = FIXTURE_WORKFLOWS.find((w) => w.name === drivenName);
        if (!driven) continue;
        for (const worker of Object.values(workflow.tasks)) {
          const fn = functions[logicalIdOf(stack.workers.get(worker)!)];
          expect(fn.Properties!.Environment.Variables[driven.envVar], worker).toEqual({
            Ref: logicalIdOf(stack.stateMachines.get(drivenName)!),
          });
          const actions = statementsOfRole(template, roleOfFunction(fn)).flatMap(actionsOf);
          expect(actions, worker).toEqual(expect.arrayContaining(['states:StartExecution', 'states:StopExecution']));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('state machines', () => {
  it('resolves every placeholder to the task function ARN or queue URL', () => {
    template.resourceCountIs('AWS::StepFunctions::StateMachine', FIXTURE_WORKFLOWS.length);
    const machines = resourcesOf(template, 'AWS::StepFunctions::StateMachine');
    for (const workflow of FIXTURE_WORKFLOWS) {
      const props = machines[logicalIdOf(stack.stateMachines.get(workflow.name)!)].Properties!;
      expect(Object.keys(props.DefinitionSubstitutions).sort()).toEqual(substitutionKeys(workflow));
      for (const [fnKey, worker] of Object.entries(workflow.tasks)) {
        expect(props.DefinitionSubstitutions[`${fnKey}FnArn`]).toEqual({
          'Fn::GetAtt': [logicalIdOf(stack.workers.get(worker)!), 'Arn'],
        });
      }
      for (const [queueKey, queueName] of Object.entries(workflow.queues)) {
        expect(props.DefinitionSubstitutions[`${queueKey}QueueUrl`]).toEqual({
          Ref: logicalIdOf(stack.queues.get(queueName)!),
        });
      }
      const definition = JSON.parse(props.DefinitionString);
      expect(definition.TimeoutSeconds).toBe(workflow.timeoutSeconds);
      expect(definition.StartAt).toBe('Prepare');
    }
  });

  it('logs ALL without execution data to a log group and traces with X-Ray', () => {
    for (const workflow of FIXTURE_WORKFLOWS) {
      const props = resourcesOf(template, 'AWS::StepFunctions::StateMachine')[
        logicalIdOf(stack.stateMachines.get(workflow.name)!)
      ].Properties!;
      expect(props.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
      expect(props.LoggingConfiguration.Destinations).toHaveLength(1);
      expect(props.TracingConfiguration).toEqual({ Enabled: true });
    }
  });

  it('grants its role invoke on each task function and send on each queue, explicitly', () => {
    const machines = resourcesOf(template, 'AWS::StepFunctions::StateMachine');
    for (const workflow of FIXTURE_WORKFLOWS) {
      const roleId =
        machines[logicalIdOf(stack.stateMachines.get(workflow.name)!)].Properties!.RoleArn['Fn::GetAtt'][0];
      const statements = statementsOfRole(template, roleId);
      for (const worker of Object.values(workflow.tasks)) {
        const fnId = logicalIdOf(stack.workers.get(worker)!);
        expect(
          statements.some((s) => actionsOf(s).includes('lambda:InvokeFunction') && mentions(s.Resource, fnId)),
          `${workflow.name} invokes ${worker}`,
        ).toBe(true);
      }
      for (const queueName of Object.values(workflow.queues)) {
        const queueId = logicalIdOf(stack.queues.get(queueName)!);
        expect(
          statements.some((s) => actionsOf(s).includes('sqs:SendMessage') && mentions(s.Resource, queueId)),
          `${workflow.name} sends to ${queueName}`,
        ).toBe(true);
      }
    }
  });

  it('fails synth when the ASL uses a placeholder the workflow does not define', () => {
    const [workflow] = FIXTURE_WORKFLOWS;
    expect(() =>
      synthStack({
        sources: fixtureLayout(),
        topology: {
          routes: [],
          queues: FIXTURE_QUEUES,
          workflows: [{ ...workflow, tasks: { Prepare: 'extract-prepare' } }],
        },
      }),
    ).toThrow(/FinishFnArn/);
  });
});

describe('HTTP API', () => {
  it('has one route per table entry plus $default, each with its own integration', () => {
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));
    const keys = routes.map((route) => route.Properties!.RouteKey).sort();
    expect(keys).toEqual([...ROUTES.map((route) => `${route.method} ${route.path}`), '$default'].sort());
    const targets = routes.map((route) => JSON.stringify(route.Properties!.Target));
    expect(new Set(targets).size).toBe(routes.length);
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', ROUTES.length + 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', { PayloadFormatVersion: '2.0' });
  });

  it('grants each route only the table and the executions its scope drives', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    const tableId = logicalIdOf(stack.table);
    for (const route of ROUTES) {
      const statements = statementsOfRole(
        template,
        roleOfFunction(functions[logicalIdOf(stack.routeFunctions.get(route.operationId)!)]),
      );
      const touchesTable = statements.some((s) => mentions(s.Resource, tableId));
      expect(touchesTable, `${route.operationId} table access`).toBe(route.scope !== null);
      const machines = (route.scope ? (WORKFLOWS_FOR_SCOPE[route.scope] ?? []) : []).flatMap(
        (name) => stack.stateMachines.get(name) ?? [],
      );
      const stateActions = statements.flatMap(actionsOf).filter((action) => action.startsWith('states:'));
      if (machines.length === 0) {
        expect(stateActions, `${route.operationId} has no workflow`).toEqual([]);
        continue;
      }
      expect([...new Set(stateActions)].sort(), route.operationId).toEqual([
        'states:DescribeExecution',
        'states:StartExecution',
        'states:StopExecution',
      ]);
      const allowed = new Set(machines.map(logicalIdOf));
      for (const s of statements.filter((s) => actionsOf(s).some((a) => a.startsWith('states:')))) {
        expect(
          machines.some((machine) => mentions(s.Resource, logicalIdOf(machine))),
          `${route.operationId} states resource`,
        ).toBe(true);
        for (const other of stack.stateMachines.values()) {
          if (!allowed.has(logicalIdOf(other))) expect(mentions(s.Resource, logicalIdOf(other))).toBe(false);
        }
      }
    }
  });
});

describe('reaper, outputs, limits', () => {
  it('schedules every worker of the schedule table (the execution reaper every 5 minutes)', () => {
    const reaper = stack.scheduled.get('execution-reaper');
    expect(reaper).toBeDefined();
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(reaper!), 'Arn'] } })],
    });
    const { template: withoutSchedules } = synthStack({
      topology: { routes: ROUTES.slice(0, 1), queues: [], workflows: [], schedules: [] },
    });
    withoutSchedules.resourceCountIs('AWS::Events::Rule', 0);
  });

  it('outputs the API URL, table name and state machine ARNs', () => {
    const outputs = template.findOutputs('*');
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'TableName',
        ...FIXTURE_WORKFLOWS.map((w) => `${pascal(w.name)}StateMachineArn`),
      ]),
    );
  });

  it('has no dependency cycle (CloudFormation would reject it only at deploy time)', () => {
    expect(findCycle(template)).toBeUndefined();
  });

  it('stays well under the CloudFormation limit of 500 resources', () => {
    const count = Object.keys(template.toJSON().Resources).length;
    expect(count).toBeLessThan(450);
  });

  it('names every missing file the topology refers to', () => {
    expect(() =>
      synthStack({
        sources: fixtureLayout({ httpHandler: (handler) => path.join(FIXTURES, 'missing', `${handler}.ts`) }),
        topology: { routes: ROUTES.slice(0, 2), queues: [], workflows: [] },
      }),
    ).toThrow(/test\/infra\/fixtures\/missing\/public\/health\.ts \(route health\)[\s\S]*public\/openapi\.ts/);
  });
});

describe('bundling (local esbuild, no Docker)', () => {
  let outdir: string;
  afterAll(() => outdir && rmSync(outdir, { recursive: true, force: true }));

  it('emits an ESM bundle with a createRequire banner, no source map, that runs', async () => {
    outdir = mkdtempSync(path.join(tmpdir(), 'pds-cdk-'));
    const { app } = synthStack(
      { sources: fixtureLayout(), topology: { routes: ROUTES.slice(0, 1), queues: [], workflows: [] } },
      { bundling: true, outdir },
    );
    app.synth();
    const bundles = readdirSync(outdir)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => path.join(outdir, entry, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles.length).toBeGreaterThan(0);
    const code = readFileSync(bundles[0], 'utf8');
    expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    expect(existsSync(`${bundles[0]}.map`)).toBe(false);
    const { handler } = await import(pathToFileURL(bundles[0]).href);
    const response = await handler({ rawPath: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/^[0-9a-f]{64}$/);
  });
});
