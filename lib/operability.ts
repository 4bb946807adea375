// What an on-call engineer gets from the stack: the alarms (lib/alarms.ts) on one SNS topic, the
// dashboard (lib/dashboard.ts) and an access log of the HTTP API. Built last, from what the stack
// made of the topology tables, so every route, queue, workflow and function is covered.
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnStage, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { Topology } from './product-data-stack';
import { OperationalAlarms, type AlarmedFunction } from './alarms';
import { OperationsDashboard } from './dashboard';
import { LOG_RETENTION } from './node-function';

export interface OperabilityProps {
  topology: Topology;
  api: HttpApi;
  /** HTTP handler functions (routes and the `$default` fallback): the rest are workers. */
  apiFunctions: ReadonlySet<LambdaFunction>;
  queues: ReadonlyMap<string, Queue>;
  deadLetterQueues: ReadonlyMap<string, Queue>;
  stateMachines: ReadonlyMap<string, StateMachine>;
  /** Alarm e-mail recipient (context `pds:alarmEmail`); none: subscribe to the topic yourself. */
  alarmEmail?: string;
}

export class Operability extends Construct {
  readonly alarms: OperationalAlarms;
  readonly dashboard: OperationsDashboard;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OperabilityProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Every Lambda in the stack, including ones other constructs add (e.g. the search indexer).
    const functions: AlarmedFunction[] = stack.node
      .findAll()
      .filter((construct): construct is LambdaFunction => construct instanceof LambdaFunction)
      .map((fn) => ({
        id: fn.node.path.split('/').slice(1).join('/'),
        fn,
        kind: props.apiFunctions.has(fn) ? 'api' : 'worker',
      }));

    this.alarms = new OperationalAlarms(this, 'Alarms', {
      api: props.api,
      deadLetterQueues: props.deadLetterQueues,
      deadLetterWorkers: new Map(props.topology.queues.map((spec) => [spec.name, spec.dlqWorker])),
      stateMachines: props.stateMachines,
      functions,
      email: props.alarmEmail,
    });
    this.dashboard = new OperationsDashboard(this, 'Dashboard', {
      api: props.api,
      families: [...new Set(props.topology.routes.map((route) => route.family))],
      stateMachines: props.stateMachines,
      queues: props.queues,
      deadLetterQueues: props.deadLetterQueues,
      alarms: [...this.alarms.alarms.values()],
    });

    // One JSON line per request at the API edge: what a client saw even when no Lambda ran.
    this.accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = props.api.defaultStage!.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: this.accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        time: '$context.requestTime',
        method: '$context.httpMethod',
        path: '$context.path',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
        integrationLatencyMs: '$context.integrationLatency',
        integrationError: '$context.integrationErrorMessage',
        ip: '$context.identity.sourceIp',
      }),
    };
  }
}
