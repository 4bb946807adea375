// What the on-call engineer gets, asserted on the synthesized template: an alarm for every DLQ,
// every state machine's failed/timed-out/aborted executions, the API's 5xx rate and p99, Lambda
// errors and throttles of every function, stalled executions; one SNS topic (e-mail from a
// context value); the dashboard; active tracing; log retention; the access log.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { THRESHOLDS } from '../../lib/alarms';
import { EXECUTION_KINDS, URL_OUTCOMES } from '../../lib/metric-names';
import { LOG_RETENTION } from '../../lib/node-function';
import { MEMORY, routeMemory, workerMemory } from '../../lib/sizing';
import { ProductDataStack } from '../../lib/product-data-stack';
import { ROUTES } from '../../lambdas/topology/routes';
import { FIXTURE_QUEUES, FIXTURE_WORKFLOWS, fixtureLayout, fixtureStack } from './helpers';
import { actionsOf, mentions, resourcesOf, statementsOfRole, type Statement } from './template-queries';

let stack: ProductDataStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = fixtureStack());
}, 120_000);

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);
type AlarmProps = Record<string, any>;
const alarms = (): AlarmProps[] =>
  Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties!);
const alarmOf = (key: string): AlarmProps => {
  const alarm = stack.operability.alarms.alarms.get(key);
  expect(alarm, `alarm ${key}`).toBeDefined();
  return resourcesOf(template, 'AWS::CloudWatch::Alarm')[logicalIdOf(alarm!)].Properties!;
};
/** Metric stats of an alarm, whether it watches one metric or an expression over several. */
const metricsOf = (
  alarm: AlarmProps,
): Array<{
  MetricName: string;
  Namespace: string;
  Dimensions: Array<{ Name: string; Value: unknown }>;
  Stat?: string;
}> =>
  alarm.Metrics
    ? alarm.Metrics.filter((m: any) => m.MetricStat).map((m: any) => ({
        ...m.MetricStat.Metric,
        Stat: m.MetricStat.Stat,
      }))
    : [
        {
          MetricName: alarm.MetricName,
          Namespace: alarm.Namespace,
          Dimensions: alarm.Dimensions,
          Stat: alarm.Statistic ?? alarm.ExtendedStatistic,
        },
      ];
const expressionOf = (alarm: AlarmProps): string => alarm.Metrics?.find((m: any) => m.Expression)?.Expression ?? '';

describe('alarms', () => {
  it('alarm on every dead-letter queue as soon as it holds a message (visible or in flight)', () => {
    for (const spec of FIXTURE_QUEUES) {
      const alarm = alarmOf(`dlq:${spec.name}`);
      const dlqId = logicalIdOf(stack.deadLetterQueues.get(spec.name)!);
      const metrics = metricsOf(alarm);
      expect(metrics.map((m) => m.MetricName).sort()).toEqual([
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesVisible',
      ]);
      for (const metric of metrics) expect(mentions(metric.Dimensions, dlqId)).toBe(true);
      expect(expressionOf(alarm)).toBe('visible + inflight');
      expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
      // The main queue is not what this alarm watches.
      for (const metric of metrics)
        expect(mentions(metric.Dimensions, logicalIdOf(stack.queues.get(spec.name)!))).toBe(false);
    }
  });

  it("alarm on every state machine's failed, timed-out and aborted executions", () => {
    for (const workflow of FIXTURE_WORKFLOWS) {
      const machineId = logicalIdOf(stack.stateMachines.get(workflow.name)!);
      const expected: Array<[string, string, number]> = [
        ['failed', 'ExecutionsFailed', 1],
        ['timed-out', 'ExecutionsTimedOut', 1],
        ['aborted', 'ExecutionsAborted', THRESHOLDS.abortedPerHour],
      ];
      for (const [suffix, metricName, threshold] of expected) {
        const alarm = alarmOf(`workflow:${workflow.name}:${suffix}`);
        expect(alarm).toMatchObject({
          Namespace: 'AWS/States',
          MetricName: metricName,
          Statistic: 'Sum',
          Threshold: threshold,
        });
        expect(mentions(alarm.Dimensions, machineId)).toBe(true);
      }
    }
  });

  it('alarm on the HTTP API 5xx rate (judged only with enough requests) and its p99 latency', () => {
    const apiId = logicalIdOf(stack.api);
    const rate = alarmOf('api:5xx-rate');
    expect(
      metricsOf(rate)
        .map((m) => m.MetricName)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    for (const metric of metricsOf(rate)) expect(mentions(metric.Dimensions, apiId)).toBe(true);
    expect(expressionOf(rate)).toBe(`IF(requests >= ${THRESHOLDS.apiMinimumRequests}, 100 * errors / requests, 0)`);
    expect(rate).toMatchObject({ Threshold: THRESHOLDS.apiServerErrorPercent, EvaluationPeriods: 2 });
    const latency = alarmOf('api:p99-latency');
    expect(latency).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: THRESHOLDS.apiP99LatencyMs,
    });
    expect(mentions(latency.Dimensions, apiId)).toBe(true);
  });

  it('cover every Lambda function with an errors alarm and every unreserved one with a throttles alarm, at most 10 metrics each', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    const lambdaAlarms = [...stack.operability.alarms.alarms.entries()].filter(([key]) => key.startsWith('lambda:'));
    const covered = (kind: 'errors' | 'throttles', fnId: string) =>
      lambdaAlarms.some(([key, alarm]) => {
        if (!key.startsWith(`lambda:${kind}:`)) return false;
        return metricsOf(resourcesOf(template, 'AWS::CloudWatch::Alarm')[logicalIdOf(alarm)].Properties!).some((m) =>
          mentions(m.Dimensions, fnId),
        );
      });
    expect(Object.keys(functions).length).toBeGreaterThan(ROUTES.length);
    for (const [fnId, fn] of Object.entries(functions)) {
      expect(covered('errors', fnId), `errors of ${fnId}`).toBe(true);
      expect(covered('throttles', fnId), `throttles of ${fnId}`).toBe(
        fn.Properties!.ReservedConcurrentExecutions === undefined,
      );
    }
    for (const [key, alarm] of lambdaAlarms) {
      const props = resourcesOf(template, 'AWS::CloudWatch::Alarm')[logicalIdOf(alarm)].Properties!;
      const metrics = metricsOf(props);
      expect(metrics.length, key).toBeLessThanOrEqual(10);
      expect(new Set(metrics.map((m) => m.MetricName)), key).toEqual(
        new Set([key.includes(':errors:') ? 'Errors' : 'Throttles']),
      );
      expect(expressionOf(props)).toBe(metrics.map((_, i) => `m${i}`).join(' + '));
    }
  });

  it('alarm when the reaper fails stalled executions, of any kind', () => {
    const alarm = alarmOf('reaper:stalled');
    const metrics = metricsOf(alarm);
    expect(metrics.map((m) => m.Dimensions.find((d) => d.Name === 'kind')!.Value).sort()).toEqual(
      [...EXECUTION_KINDS].sort(),
    );
    for (const metric of metrics) {
      expect(metric).toMatchObject({
        Namespace: 'ProductDataService',
        MetricName: 'StalledExecutionsReaped',
        Stat: 'Sum',
      });
      expect(metric.Dimensions).toContainEqual({ Name: 'service', Value: 'product-data-service' });
    }
    expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('every alarm notifies the one topic on alarm and recovery, ignores missing data and says what to check first', () => {
    const topics = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
    expect(topics).toHaveLength(1);
    const all = alarms();
    expect(all.length).toBe(stack.operability.alarms.alarms.size);
    for (const alarm of all) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topics[0] }]);
      expect(alarm.OKActions).toEqual([{ Ref: topics[0] }]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
      expect(alarm.AlarmDescription).toMatch(/First/);
      expect(alarm.AlarmDescription.length).toBeLessThanOrEqual(1024);
    }
  });
});

describe('topic', () => {
  it('has no subscription unless an e-mail is given', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('subscribes the e-mail of the context value pds:alarmEmail', () => {
    const app = new App({
      context: { 'aws:cdk:bundling-stacks': [], 'pds:alarmEmail': 'oncall@example.com' },
      // The default CloudFormation rules run in nag.test.ts (helpers.ts says why).
      builtinCloudFormationValidation: false,
    });
    const withEmail = new ProductDataStack(app, 'EmailStack', {
      env: { region: 'eu-west-1' },
      sources: fixtureLayout(),
      topology: { routes: ROUTES.slice(0, 2), queues: FIXTURE_QUEUES, workflows: FIXTURE_WORKFLOWS },
    });
    const emailTemplate = Template.fromStack(withEmail);
    emailTemplate.resourceCountIs('AWS::SNS::Subscription', 1);
    emailTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: withEmail.getLogicalId(withEmail.operability.alarms.topic.node.defaultChild as never) },
    });
    expect(Object.keys(emailTemplate.findOutputs('*'))).toEqual(
      expect.arrayContaining(['AlarmTopicArn', 'DashboardName', 'ApiFunctionLogGroup', 'WorkerFunctionLogGroup']),
    );
  });
});

describe('dashboard', () => {
  let body: string;
  let bodyObject: unknown;
  beforeAll(() => {
    const [dashboard] = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    // Fn::Join of literal text and references: the literal parts are the dashboard JSON.
    bodyObject = dashboard.Properties!.DashboardBody;
    body = JSON.stringify(bodyObject);
  });

  it('is one dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('shows requests, p99 and 4xx/5xx per API family from the service metrics', () => {
    for (const family of ['legacy', 'v1', 'v2']) {
      for (const metric of ['ApiRequests', 'ApiLatency'])
        expect(body).toContain(`\\"${metric}\\",\\"family\\",\\"${family}\\"`);
      for (const status of ['4xx', '5xx'])
        expect(body).toContain(`\\"ApiErrors\\",\\"class\\",\\"${status}\\",\\"family\\",\\"${family}\\"`);
    }
    expect(body).toContain('p99');
    expect(body).not.toContain('\\"family\\",\\"public\\"');
  });

  it('shows executions started, in flight and failed per workflow', () => {
    for (const workflow of FIXTURE_WORKFLOWS) {
      expect(body).toContain(`Executions: ${workflow.name}`);
      expect(mentions(bodyObject, logicalIdOf(stack.stateMachines.get(workflow.name)!))).toBe(true);
    }
    for (const metric of ['ExecutionsStarted', 'ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'])
      expect(body).toContain(metric);
    expect(body).toContain('RUNNING_SUM(started - succeeded - failed - timedout - aborted)');
  });

  it('shows URL outcomes per extraction kind and credits used', () => {
    for (const outcome of URL_OUTCOMES) expect(body).toContain(`\\"outcome\\",\\"${outcome}\\"`);
    for (const kind of ['extract-urls', 'extract-vendor', 'products-batch'])
      expect(body).toContain(`URL outcomes: ${kind}`);
    for (const kind of EXECUTION_KINDS) expect(body).toContain(`\\"CreditsUsed\\",\\"kind\\",\\"${kind}\\"`);
  });

  it("shows every queue's depth and age and every DLQ's depth", () => {
    for (const spec of FIXTURE_QUEUES) {
      expect(mentions(bodyObject, logicalIdOf(stack.queues.get(spec.name)!))).toBe(true);
      expect(mentions(bodyObject, logicalIdOf(stack.deadLetterQueues.get(spec.name)!))).toBe(true);
    }
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesNotVisible',
    ])
      expect(body).toContain(metric);
  });

  it("shows every alarm's state and Lambda errors of every function of the stack", () => {
    expect(body).toContain('"alarm"'.replace(/"/g, '\\"'));
    for (const alarm of stack.operability.alarms.alarms.values())
      expect(mentions(bodyObject, logicalIdOf(alarm))).toBe(true);
    expect(body).toContain('SEARCH(');
  });
});

describe('tracing and logs', () => {
  it('traces every function actively and every state machine', () => {
    for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties!.TracingConfig, id).toEqual({ Mode: 'Active' });
    }
    for (const machine of Object.values(resourcesOf(template, 'AWS::StepFunctions::StateMachine'))) {
      expect(machine.Properties!.TracingConfiguration).toEqual({ Enabled: true });
    }
  });

  it("sends every function's logs to a shared log group with a retention: handlers to one, workers to the other", () => {
    const groups = resourcesOf(template, 'AWS::Logs::LogGroup');
    const fallback = stack.node.findChild('FallbackFn') as never;
    const apiFunctions = new Set([...stack.routeFunctions.values(), fallback].map(logicalIdOf));
    const used = new Map<string, Set<boolean>>();
    for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
      const groupId = fn.Properties!.LoggingConfig.LogGroup?.Ref as string;
      expect(groups[groupId], `${id} log group`).toBeDefined();
      expect(groups[groupId].Properties!.RetentionInDays).toBe(LOG_RETENTION);
      used.set(groupId, (used.get(groupId) ?? new Set()).add(apiFunctions.has(id)));
    }
    // Two groups, each holding one kind of function.
    expect(used.size).toBe(2);
    for (const kinds of used.values()) expect(kinds.size).toBe(1);
  });

  it('gives every log group of the stack a retention', () => {
    for (const [id, group] of Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup'))) {
      expect(group.Properties!.RetentionInDays, id).toBeGreaterThan(0);
    }
  });

  it('writes the HTTP API access log (request id, route, status, latencies, integration error)', () => {
    const [stage] = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));
    const settings = stage.Properties!.AccessLogSettings;
    expect(mentions(settings.DestinationArn, logicalIdOf(stack.operability.accessLogs))).toBe(true);
    const format = JSON.parse(settings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      integrationError: '$context.integrationErrorMessage',
    });
  });
});

describe('API invocation through one role', () => {
  it('every integration invokes its handler with the API role, and no Lambda permission per route is left', () => {
    const integrations = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(ROUTES.length + 1);
    const roleArns = new Set(integrations.map((integration) => JSON.stringify(integration.Properties!.CredentialsArn)));
    expect(roleArns.size).toBe(1);
    const roleId = JSON.parse([...roleArns][0])['Fn::GetAtt'][0] as string;
    expect(
      resourcesOf(template, 'AWS::IAM::Role')[roleId].Properties!.AssumeRolePolicyDocument.Statement[0].Principal,
    ).toEqual({ Service: 'apigateway.amazonaws.com' });
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission'));
    expect(permissions.filter((p) => p.Properties!.Principal === 'apigateway.amazonaws.com')).toEqual([]);
    // The role may invoke exactly the HTTP handlers, each of them.
    // CDK moves what does not fit the inline policy into an overflow managed policy of the same role.
    const managed = Object.values(resourcesOf(template, 'AWS::IAM::ManagedPolicy'))
      .filter((policy) => mentions(policy.Properties!.Roles, roleId))
      .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Statement[]);
    const invoked = [...statementsOfRole(template, roleId), ...managed].filter((s) =>
      actionsOf(s).includes('lambda:InvokeFunction'),
    );
    const fallback = stack.node.findChild('FallbackFn') as never;
    for (const fn of [...stack.routeFunctions.values(), fallback]) {
      expect(invoked.some((s) => mentions(s.Resource, logicalIdOf(fn)))).toBe(true);
    }
    for (const worker of stack.workers.values())
      expect(invoked.some((s) => mentions(s.Resource, logicalIdOf(worker)))).toBe(false);
    for (const integration of integrations) {
      expect(invoked.some((s) => mentions(s.Resource, integration.Properties!.IntegrationUri['Fn::GetAtt'][0]))).toBe(
        true,
      );
    }
  });
});

describe('memory per function', () => {
  it('sizes each route and worker by what it does (lib/sizing.ts), not one default', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const route of ROUTES) {
      expect(
        functions[logicalIdOf(stack.routeFunctions.get(route.operationId)!)].Properties!.MemorySize,
        route.operationId,
      ).toBe(routeMemory(route));
    }
    for (const [name, worker] of stack.workers)
      expect(functions[logicalIdOf(worker)].Properties!.MemorySize, name).toBe(workerMemory(name));
    const sizes = new Set(Object.values(functions).map((fn) => fn.Properties!.MemorySize));
    expect(sizes.size).toBeGreaterThanOrEqual(4);
    // The vendors handler is DynamoDB-bound; a synchronous extraction is CPU-bound; search ranks in memory.
    const byId = (operationId: string) =>
      functions[logicalIdOf(stack.routeFunctions.get(operationId)!)].Properties!.MemorySize;
    expect([byId('v2Vendors'), byId('legacyProduct'), byId('legacySearch'), byId('health')]).toEqual([
      MEMORY.api,
      MEMORY.syncExtraction,
      MEMORY.search,
      MEMORY.public,
    ]);
    expect(functions[logicalIdOf(stack.workers.get('extract-worker')!)].Properties!.MemorySize).toBe(MEMORY.pageWorker);
  });
});
