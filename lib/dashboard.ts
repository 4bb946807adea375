// One CloudWatch dashboard for the on-call engineer, built from the same tables as the stack:
// alarm states; requests, p99 and 4xx/5xx per API family (the service's own EMF metrics, emitted
// by the HTTP pipeline); executions started/in flight/failed per workflow; URL outcomes and credits
// per execution kind; queue depths and ages; DLQ depths; Lambda errors, throttles and durations.
import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  PeriodOverride,
  Stats,
  TextWidget,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { Family } from '../lambdas/topology/routes';
import { EXECUTION_KINDS, kindsOfWorkflow, serviceMetric, URL_OUTCOMES } from './metric-names';

export interface OperationsDashboardProps {
  api: HttpApi;
  /** The API families the route table has (legacy, v1, v2, public). */
  families: readonly Family[];
  stateMachines: ReadonlyMap<string, StateMachine>;
  queues: ReadonlyMap<string, Queue>;
  deadLetterQueues: ReadonlyMap<string, Queue>;
  alarms: readonly IAlarm[];
}

const FIVE_MINUTES = Duration.minutes(5);
const WIDE = 12;
const HEIGHT = 6;

export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${stack.stackName}-operations`,
      defaultInterval: Duration.hours(6),
      periodOverride: PeriodOverride.AUTO,
    });
    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown:
            '# Product data service\nAlarms, then the API per family, executions per workflow, URL outcomes and credits, queues, Lambda. ' +
            'A customer\'s execution id: X-Ray → traces → `annotation.execution_id = "<id>"`; the Step Functions execution has the same name.',
          width: 24,
          height: 2,
        }),
      ],
      [
        new AlarmStatusWidget({
          title: 'Alarms',
          alarms: [...props.alarms],
          width: 24,
          height: Math.min(8, 2 + Math.ceil(props.alarms.length / 4)),
        }),
      ],
      this.apiWidgets(props),
      ...this.workflowWidgets(props),
      this.outcomeWidgets(),
      this.queueWidgets(props),
      this.lambdaWidgets(stack),
    ];
    for (const row of rows) this.dashboard.addWidgets(...row);
  }

  private apiWidgets(props: OperationsDashboardProps): IWidget[] {
    const families = props.families.filter((family) => family !== 'public');
    return [
      graph(
        'Requests per family',
        families.map((family) => serviceMetric('ApiRequests', { family }, { label: family })),
      ),
      graph(
        'p99 latency per family (ms)',
        families.map((family) => serviceMetric('ApiLatency', { family }, { statistic: Stats.p(99), label: family })),
      ),
      graph(
        '4xx and 5xx per family',
        families.flatMap((family) =>
          ['4xx', '5xx'].map((status) =>
            serviceMetric('ApiErrors', { family, class: status }, { label: `${family} ${status}` }),
          ),
        ),
      ),
      graph(
        'HTTP API (all routes)',
        [
          props.api.metricCount({ period: FIVE_MINUTES, label: 'requests' }),
          props.api.metricClientError({ period: FIVE_MINUTES, label: '4xx' }),
          props.api.metricServerError({ period: FIVE_MINUTES, label: '5xx' }),
        ],
        [props.api.metricLatency({ period: FIVE_MINUTES, statistic: Stats.p(99), label: 'p99 latency (ms)' })],
      ),
    ];
  }

  private workflowWidgets(props: OperationsDashboardProps): IWidget[][] {
    const widgets: IWidget[] = [];
    for (const [name, machine] of props.stateMachines) {
      const sum = { period: FIVE_MINUTES, statistic: Stats.SUM };
      const started = machine.metricStarted(sum);
      const ended = [
        machine.metricSucceeded(sum),
        machine.metricFailed(sum),
        machine.metricTimedOut(sum),
        machine.metricAborted(sum),
      ];
      // Step Functions publishes no "running" count: started minus ended, summed over the graph's window.
      const inFlight = new MathExpression({
        expression: 'RUNNING_SUM(started - succeeded - failed - timedout - aborted)',
        usingMetrics: { started, succeeded: ended[0], failed: ended[1], timedout: ended[2], aborted: ended[3] },
        label: 'in flight (net since the window start)',
        period: FIVE_MINUTES,
      });
      widgets.push(
        graph(`Executions: ${name}`, [
          started.with({ label: 'started' }),
          inFlight,
          ended[1].with({ label: 'failed' }),
          ended[2].with({ label: 'timed out' }),
          ended[3].with({ label: 'aborted' }),
        ]),
      );
      widgets.push(
        graph(
          `${name}: duration p50/p99 (ms) and credits`,
          kindsOfWorkflow(name).flatMap((kind) => [
            serviceMetric('ExecutionDuration', { kind }, { statistic: Stats.p(50), label: `${kind} p50` }),
            serviceMetric('ExecutionDuration', { kind }, { statistic: Stats.p(99), label: `${kind} p99` }),
          ]),
          kindsOfWorkflow(name).map((kind) => serviceMetric('CreditsUsed', { kind }, { label: `${kind} credits` })),
        ),
      );
    }
    const rows: IWidget[][] = [];
    for (let i = 0; i < widgets.length; i += 4) rows.push(widgets.slice(i, i + 4));
    return rows;
  }

  private outcomeWidgets(): IWidget[] {
    const extractKinds = kindsOfWorkflow('extract');
    return [
      ...extractKinds.map((kind) =>
        graph(
          `URL outcomes: ${kind}`,
          URL_OUTCOMES.map((outcome) => serviceMetric('UrlOutcomes', { kind, outcome }, { label: outcome })),
        ),
      ),
      graph(
        'Credits used per kind',
        EXECUTION_KINDS.map((kind) => serviceMetric('CreditsUsed', { kind }, { label: kind })),
      ),
    ];
  }

  private queueWidgets(props: OperationsDashboardProps): IWidget[] {
    const max = { period: FIVE_MINUTES, statistic: Stats.MAXIMUM };
    const queues = [...props.queues];
    return [
      graph(
        'Queue depth (visible / in flight)',
        queues.flatMap(([name, queue]) => [
          queue.metricApproximateNumberOfMessagesVisible({ ...max, label: `${name} visible` }),
          queue.metricApproximateNumberOfMessagesNotVisible({ ...max, label: `${name} in flight` }),
        ]),
      ),
      graph(
        'Oldest message age (s)',
        queues.map(([name, queue]) => queue.metricApproximateAgeOfOldestMessage({ ...max, label: name })),
      ),
      graph(
        'Dead-letter queue depth',
        [...props.deadLetterQueues].map(([name, dlq]) =>
          dlq.metricApproximateNumberOfMessagesVisible({ ...max, label: `${name} DLQ` }),
        ),
      ),
    ];
  }

  private lambdaWidgets(stack: Stack): IWidget[] {
    // Every function of this stack is named `<stack>-<construct>-<suffix>`: one search covers new ones too.
    const search = (metricName: string, statistic: string, label: string) =>
      new MathExpression({
        expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metricName}" FunctionName="${stack.stackName}-"', '${statistic}', 300)`,
        usingMetrics: {},
        label,
        period: FIVE_MINUTES,
      });
    return [
      graph('Lambda errors per function', [search('Errors', 'Sum', 'errors')]),
      graph('Lambda throttles per function', [search('Throttles', 'Sum', 'throttles')]),
      graph('Lambda p99 duration per function (ms)', [search('Duration', 'p99', 'p99')]),
      graph('Lambda concurrency per function', [search('ConcurrentExecutions', 'Maximum', 'concurrency')]),
    ];
  }
}

function graph(title: string, left: IMetric[], right: IMetric[] = []): GraphWidget {
  return new GraphWidget({ title, left, right, width: WIDE / 2, height: HEIGHT, period: FIVE_MINUTES });
}
