// The on-call alarms, built from what the stack made out of the topology tables: a new queue,
// workflow, route or worker gets its alarms without anyone remembering. Every alarm notifies one
// SNS topic (optionally e-mailed) and its description says what it means and what to check first;
// the README's operator section is the long form of the same text.
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { EXECUTION_KINDS, serviceMetric } from './metric-names';

/** Thresholds an operator may want to read next to the alarms (the tests pin them). */
export const THRESHOLDS = {
  /** 5xx answers as a percentage of requests over 5 minutes, two periods running. */
  apiServerErrorPercent: 1,
  /** Requests in 5 minutes below which the 5xx rate is not judged (one error in three calls is no outage). */
  apiMinimumRequests: 20,
  /** p99 of the API's latency over 5 minutes, three periods running (sync extraction may take 29 s). */
  apiP99LatencyMs: 10_000,
  /** Lambda errors (uncaught exceptions, timeouts, out of memory) per group of functions in 5 minutes. */
  lambdaErrors: 5,
  /** Customer cancels and the reaper abort executions too: only a burst is unusual. */
  abortedPerHour: 25,
  /** How far (seconds) the OpenSearch indexer may trail the table's stream, two 5-minute periods running. */
  searchIndexerLagSeconds: 300,
  /** Free storage (MiB) per OpenSearch node below which writes are about to be blocked. */
  searchFreeStorageMiB: 5_120,
} as const;

/** Metric math in one alarm may name at most 10 metrics. */
const METRICS_PER_ALARM = 10;

export interface AlarmedFunction {
  /** Stable construct id (`RouteV2VendorsFn`, `ExtractWorkerFn`): alarm names and descriptions quote it. */
  id: string;
  fn: LambdaFunction;
  kind: 'api' | 'worker';
}

export interface OperationalAlarmsProps {
  api: HttpApi;
  deadLetterQueues: ReadonlyMap<string, Queue>;
  /** Which worker, if any, consumes each dead-letter queue (topology/queues.ts dlqWorker). */
  deadLetterWorkers: ReadonlyMap<string, string | undefined>;
  stateMachines: ReadonlyMap<string, StateMachine>;
  functions: readonly AlarmedFunction[];
  /** Context `pds:alarmEmail`: subscribe this address to the topic. */
  email?: string;
}

export class OperationalAlarms extends Construct {
  readonly topic: Topic;
  /** Every alarm, keyed by a stable name (`dlq:extract-work`, `workflow:crawl:failed`, ...). */
  readonly alarms = new Map<string, Alarm>();

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'Product data service alarms', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));

    for (const [name, dlq] of props.deadLetterQueues)
      this.deadLetterAlarm(name, dlq, props.deadLetterWorkers.get(name));
    for (const [name, machine] of props.stateMachines) this.workflowAlarms(name, machine);
    this.apiAlarms(props.api);
    this.lambdaAlarms(props.functions);
    this.reaperAlarm();
  }

  private add(key: string, constructId: string, props: ConstructorParameters<typeof Alarm>[2]): Alarm {
    const alarm = new Alarm(this, constructId, { treatMissingData: TreatMissingData.NOT_BREACHING, ...props });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.set(key, alarm);
    return alarm;
  }

  private deadLetterAlarm(queueName: string, dlq: Queue, dlqWorker: string | undefined): void {
    // Visible plus in flight: a DLQ worker that takes messages and fails keeps them in flight.
    const depth = new MathExpression({
      expression: 'visible + inflight',
      usingMetrics: {
        visible: dlq.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(1) }),
        inflight: dlq.metricApproximateNumberOfMessagesNotVisible({
          statistic: 'Maximum',
          period: Duration.minutes(1),
        }),
      },
      label: `${queueName} DLQ depth`,
      period: Duration.minutes(1),
    });
    const consumer = dlqWorker
      ? `Its worker ${dlqWorker} records those items as failed; a depth that stays up means that worker fails too: read its logs (WorkerFunctionLogs, stream prefix of the ${dlqWorker} function).`
      : 'Nothing consumes it: inspect the messages in the SQS console and redrive them once fixed.';
    this.add(`dlq:${queueName}`, `${pascalCase(queueName)}DlqDepth`, {
      alarmDescription:
        `Messages in the ${queueName} dead-letter queue: a batch failed on every delivery (maxReceiveCount). ` +
        `First check the ${queueName} worker's errors in WorkerFunctionLogs around the alarm time and the X-Ray traces ` +
        `annotated with the execution_id in the message body. ${consumer}`,
      metric: depth,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
  }

  private workflowAlarms(name: string, machine: StateMachine): void {
    const fiveMinutes = { period: Duration.minutes(5), statistic: 'Sum' };
    const id = pascalCase(name);
    const firstCheck = `First open the ${name} state machine's failed executions in the Step Functions console (the execution name is the execution id customers quote), find the failed state, then the X-Ray trace of that Lambda (annotation.execution_id).`;
    this.add(`workflow:${name}:failed`, `${id}ExecutionsFailed`, {
      alarmDescription: `${name} executions failed: a step failed after its retries and the execution item says failed. ${firstCheck}`,
      metric: machine.metricFailed(fiveMinutes),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add(`workflow:${name}:timed-out`, `${id}ExecutionsTimedOut`, {
      alarmDescription:
        `${name} executions hit the workflow timeout (topology/workflows.ts timeoutSeconds): work is stuck or much larger than planned. ` +
        `First look at the state that was running at the timeout (usually a Map waiting for task tokens: check the work queue's age and its DLQ). ${firstCheck}`,
      metric: machine.metricTimedOut(fiveMinutes),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add(`workflow:${name}:aborted`, `${id}ExecutionsAborted`, {
      alarmDescription:
        `More than ${THRESHOLDS.abortedPerHour} ${name} executions aborted in an hour. Customer cancels (DELETE) and the reaper stop executions, ` +
        `so a few are normal; a burst means a client cancelling in a loop or the reaper failing many (see the StalledExecutionsReaped alarm). ` +
        `First check the API's DELETE calls per organization in ApiFunctionLogs.`,
      metric: machine.metricAborted({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: THRESHOLDS.abortedPerHour,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
  }

  private apiAlarms(api: HttpApi): void {
    const period = Duration.minutes(5);
    const serverErrorRate = new MathExpression({
      expression: `IF(requests >= ${THRESHOLDS.apiMinimumRequests}, 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: 'Sum' }),
        requests: api.metricCount({ period, statistic: 'Sum' }),
      },
      label: 'HTTP API 5xx %',
      period,
    });
    this.add('api:5xx-rate', 'Api5xxRate', {
      alarmDescription:
        `More than ${THRESHOLDS.apiServerErrorPercent}% of API requests answered 5xx for 10 minutes. ` +
        'First query ApiFunctionLogs with Logs Insights for level = "ERROR" (each request line has operationId, status, code and the internal error), ' +
        'then the Lambda errors and throttles alarms and the DynamoDB console for throttled requests.',
      metric: serverErrorRate,
      threshold: THRESHOLDS.apiServerErrorPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
    });
    this.add('api:p99-latency', 'ApiP99Latency', {
      alarmDescription:
        `API p99 latency above ${THRESHOLDS.apiP99LatencyMs} ms for 15 minutes. ` +
        "First open the dashboard's p99 per family to find the family, then X-Ray traces of that operation (annotation.operation) sorted by duration for the slow call (DynamoDB, a store fetch, cold starts).",
      metric: api.metricLatency({ period, statistic: 'p99' }),
      threshold: THRESHOLDS.apiP99LatencyMs,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    });
  }

  private lambdaAlarms(functions: readonly AlarmedFunction[]): void {
    // Grouped: one alarm per function would cost ~140 of CloudFormation's 500 resources.
    for (const kind of ['api', 'worker'] as const) {
      const ofKind = functions.filter((f) => f.kind === kind);
      chunk(ofKind, METRICS_PER_ALARM).forEach((group, index) => {
        const label = `${kind === 'api' ? 'Api' : 'Worker'}${index + 1}`;
        const names = group.map((f) => f.id).join(', ');
        const logs = kind === 'api' ? 'ApiFunctionLogs' : 'WorkerFunctionLogs';
        this.add(`lambda:errors:${kind}:${index + 1}`, `LambdaErrors${label}`, {
          alarmDescription:
            `Lambda errors (uncaught exceptions, timeouts, out of memory) reached ${THRESHOLDS.lambdaErrors} in 5 minutes in: ${names}. ` +
            `First open the dashboard's Lambda errors widget to find the function, then ${logs} for "Task timed out", "Runtime.OutOfMemory" or stack traces.`,
          metric: sumOf(
            group.map((f) => f.fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' })),
            'errors',
          ),
          threshold: THRESHOLDS.lambdaErrors,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
        });
      });
      // A function with reserved concurrency (the search indexer: one writer) is throttled by design.
      const throttleable = ofKind.filter(
        (f) => (f.fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions === undefined,
      );
      chunk(throttleable, METRICS_PER_ALARM).forEach((group, index) => {
        const label = `${kind === 'api' ? 'Api' : 'Worker'}${index + 1}`;
        this.add(`lambda:throttles:${kind}:${index + 1}`, `LambdaThrottles${label}`, {
          alarmDescription:
            `Lambda throttled invocations in: ${group.map((f) => f.id).join(', ')}. The account's concurrency is used up. ` +
            'First check ConcurrentExecutions in the Lambda console (account level) and which function scaled out (a large extraction fans out to many extract-worker instances); raise the quota or cap the worker with reserved concurrency.',
          metric: sumOf(
            group.map((f) => f.fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' })),
            'throttles',
          ),
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
        });
      });
    }
  }

  /**
   * Search on OpenSearch (`-c pds:search=opensearch`): a stream batch the indexer gave up on,
   * an indexer falling behind the table, and the domain's own health. The indexer's errors are
   * among the Lambda error alarms like every function's.
   */
  searchEngineAlarms(parts: { deadLetterQueue: Queue; indexer: LambdaFunction; domain: IDomain }): void {
    const { deadLetterQueue, indexer, domain } = parts;
    this.add('search:indexer-dlq', 'SearchIndexerDlqDepth', {
      alarmDescription:
        'A stream batch the OpenSearch indexer failed on every retry (bisected down to one record): those products or listings are missing or stale in search. ' +
        "Each message names the batch's shard and sequence numbers. First read the indexer's errors in WorkerFunctionLogs (a refused document names its reason), fix, then re-store the items or let the next change of each re-index it.",
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add('search:indexer-lag', 'SearchIndexerIteratorAge', {
      alarmDescription:
        `The OpenSearch indexer is more than ${THRESHOLDS.searchIndexerLagSeconds / 60} minutes behind the table's stream: new products reach search late. ` +
        "First check the domain's indexing rejections and CPU (the bulk writes slow down), then the indexer's errors and duration.",
      metric: indexer.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: THRESHOLDS.searchIndexerLagSeconds * 1000,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
    });
    this.add('search:domain-red', 'SearchDomainRed', {
      alarmDescription:
        'The OpenSearch domain is red: a primary shard is unassigned and searches fail or miss documents. First open the domain in the OpenSearch console (cluster health, free storage, node count).',
      metric: domain.metricClusterStatusRed({ statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    this.add('search:domain-storage', 'SearchDomainStorageLow', {
      alarmDescription: `Less than ${THRESHOLDS.searchFreeStorageMiB} MiB free on an OpenSearch node: writes will be blocked. Grow the EBS volumes (lib/opensearch-search.ts OPENSEARCH_SIZING).`,
      metric: domain.metricFreeStorageSpace({ statistic: 'Minimum', period: Duration.minutes(5) }),
      threshold: THRESHOLDS.searchFreeStorageMiB,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
  }

  private reaperAlarm(): void {
    this.add('reaper:stalled', 'StalledExecutionsReaped', {
      alarmDescription:
        'The reaper failed executions that passed their deadline (workflow timeout + 5 minutes) without finishing: their state machine died or lost track. ' +
        'First search X-Ray for annotation.execution_id of a reaped execution (WorkerFunctionLogs of execution-reaper list them), then its Step Functions execution history.',
      // Emitted per execution kind; at most 10 kinds fit one expression.
      metric: sumOf(
        EXECUTION_KINDS.map((kind) =>
          serviceMetric('StalledExecutionsReaped', { kind }, { period: Duration.minutes(15) }),
        ),
        'stalled executions reaped',
        Duration.minutes(15),
      ),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
  }
}

/** One expression summing up to 10 metrics: `m0 + m1 + ...`. */
function sumOf(metrics: IMetric[], label: string, period = Duration.minutes(5)): MathExpression {
  if (metrics.length > METRICS_PER_ALARM)
    throw new Error(`An alarm expression may use at most ${METRICS_PER_ALARM} metrics (${label}: ${metrics.length})`);
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric]));
  return new MathExpression({ expression: Object.keys(usingMetrics).join(' + '), usingMetrics, label, period });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

const pascalCase = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
