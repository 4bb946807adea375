// The AWS deployment, built only from the topology tables: one table, one HTTP API with a Lambda
// per route, SQS work queues with DLQs and workers, Step Functions from the ASL files.
import { readFileSync } from 'node:fs';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ENV } from '../lambdas/topology/env';
import { QUEUES, type QueueSpec } from '../lambdas/topology/queues';
import { ROUTES, type Route, type Scope } from '../lambdas/topology/routes';
import { TABLE } from '../lambdas/topology/table';
import { WORKFLOWS, type WorkflowSpec } from '../lambdas/topology/workflows';
import { buildSubstitutions } from './asl-substitutions';
import { nodeFunction, sharedLogGroup } from './node-function';
import { assertSourcesExist, projectLayout, type SourceLayout } from './source-layout';
import { SCHEDULES, type ScheduleSpec } from '../lambdas/topology/schedules';
import { SearchIndex } from './search-index';
import { OpenSearchSearch } from './opensearch-search';
import { acknowledge, acknowledgeRepeatedFindings } from './audit';
import { Operability } from './operability';
import { apiInvokeRole, RoleInvokedLambdaIntegration } from './api-integration';
import { routeMemory, workerMemory } from './sizing';
import { RENDER_WORKER, RENDERS_DIRECTLY, renderDirectFunction, renderWorkerFunction } from './render-worker';
import { FunctionRoles, type PermissionSet } from './function-roles';

export interface Topology {
  routes: readonly Route[];
  queues: readonly QueueSpec[];
  workflows: readonly WorkflowSpec[];
  schedules: readonly ScheduleSpec[];
}

export interface ProductDataStackProps extends StackProps {
  /** Defaults to the tables in lambdas/topology/. */
  topology?: Partial<Topology>;
  /** Defaults to the repository layout under the current working directory. */
  sources?: SourceLayout;
  /** RETAIN (default) keeps the data when the stack is deleted. */
  tableRemovalPolicy?: RemovalPolicy;
  /** Alarm e-mail recipient; default the context value `pds:alarmEmail` (none: no subscription). */
  alarmEmail?: string;
  /**
   * The search engine: `snapshot` (default), the in-process index loaded from S3, or `opensearch`,
   * an OpenSearch domain fed by the table's stream; default the context value `pds:search`.
   */
  search?: 'snapshot' | 'opensearch';
  /**
   * true (default): routes and task workers with the same grants share one role (lib/function-roles.ts);
   * false: a role per function, which test/infra/function-roles.test.ts compares against.
   */
  shareRoles?: boolean;
}

/**
 * The workflows a route's scope starts, stops or reads; absent scopes touch no executions.
 * Vendor-mode extraction starts the crawl it waits for; crawl status and cancel release or fail
 * the extractions waiting on it.
 */
export const WORKFLOWS_FOR_SCOPE: Partial<Record<Scope, readonly string[]>> = {
  extract: ['extract', 'crawl'],
  crawl: ['crawl', 'extract'],
  search: ['agentic'],
};

/**
 * Other workflows a workflow's task workers drive (the crawl's steps release or fail the
 * extractions waiting on it). Never the worker's own workflow: its definition names the worker.
 */
export const WORKFLOWS_DRIVEN_BY_TASKS: Readonly<Record<string, readonly string[]>> = {
  crawl: ['extract'],
};

const HTTP_TIMEOUT_SECONDS = 29; // the HTTP API integration limit is 30 s
const TASK_WORKER_TIMEOUT_SECONDS = 300;
const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/** `v1ProductsStart` -> `V1ProductsStart`, `extract-work` -> `ExtractWork`: stable construct ids. */
export const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

// Memory per function from measurement: lib/sizing.ts.
function httpSizing(route: Route): { memorySize: number; timeoutSeconds: number } {
  return { memorySize: routeMemory(route), timeoutSeconds: route.family === 'public' ? 10 : HTTP_TIMEOUT_SECONDS };
}

export class ProductDataStack extends Stack {
  readonly table: Table;
  readonly api: HttpApi;
  readonly queues = new Map<string, Queue>();
  readonly deadLetterQueues = new Map<string, Queue>();
  readonly workers = new Map<string, NodejsFunction>();
  readonly stateMachines = new Map<string, StateMachine>();
  readonly routeFunctions = new Map<string, NodejsFunction>();
  /** Scheduled workers by schedule name (topology/schedules.ts). */
  readonly scheduled = new Map<string, NodejsFunction>();
  /** The search index snapshot bucket and its indexer (lib/search-index.ts), unless search is on OpenSearch. */
  readonly searchIndex?: SearchIndex;
  /** The OpenSearch domain and its stream indexer (lib/opensearch-search.ts), with `-c pds:search=opensearch`. */
  readonly openSearch?: OpenSearchSearch;
  /** Alarms, their SNS topic, the dashboard and the API access log (lib/operability.ts). */
  readonly operability: Operability;
  /** The render function's direct entry, for the synchronous operations (lib/render-worker.ts). */
  readonly renderDirect?: NodejsFunction;
  /** The roles shared by functions of one permission set. */
  readonly functionRoles: FunctionRoles;
  private readonly search: 'snapshot' | 'opensearch';

  constructor(scope: Construct, id: string, props: ProductDataStackProps = {}) {
    super(scope, id, props);
    const topology: Topology = {
      routes: props.topology?.routes ?? ROUTES,
      queues: props.topology?.queues ?? QUEUES,
      workflows: props.topology?.workflows ?? WORKFLOWS,
      schedules: props.topology?.schedules ?? SCHEDULES,
    };
    const sources = props.sources ?? projectLayout(process.cwd());
    checkTopology(topology, sources);
    this.search = props.search ?? searchEngineOf(this.node.tryGetContext('pds:search'));
    this.functionRoles = new FunctionRoles(this, props.shareRoles ?? true, pascal);

    this.table = this.createTable(props.tableRemovalPolicy ?? RemovalPolicy.RETAIN);
    for (const spec of topology.queues) this.createQueue(spec);

    // Workers before state machines (their ARNs are substituted into the ASL), state machines
    // before HTTP functions (whose environment carries the state machine ARNs).
    const taskWorkers = new Set(topology.workflows.flatMap((w) => Object.values(w.tasks)));
    this.createWorkers(topology, sources, taskWorkers);
    for (const workflow of topology.workflows) this.createStateMachine(workflow, sources);

    this.giveWorkersStateMachines(topology, taskWorkers);

    const apiEnvironment = { ...this.dataEnvironment(topology), ...this.stateMachineEnvironment(topology) };
    const { api, fallback } = this.createApi(topology, sources, apiEnvironment);
    this.api = api;
    if (this.workers.has(RENDER_WORKER))
      this.renderDirect = renderDirectFunction(this, 'RenderDirectFn', {
        entry: sources.worker(RENDER_WORKER),
        environment: this.dataEnvironment(topology),
        table: this.table,
        routes: this.routeFunctions,
        workers: this.workers,
      });
    for (const schedule of topology.schedules) this.createSchedule(schedule, sources, apiEnvironment);
    this.grantEveryFunctionsQueues(topology);

    // Search Lambdas (the search-scoped routes, and workers such as agentic retrieval) load the
    // index snapshot from S3; one indexer woken by the table's stream keeps it current. Or, with
    // `-c pds:search=opensearch`, they query an OpenSearch domain the stream keeps current.
    const searchRoutes = topology.routes
      .filter((route) => route.scope === 'search')
      .map((route) => this.routeFunctions.get(route.operationId)!);
    const searchProps = {
      table: this.table,
      environment: this.dataEnvironment(topology),
      readers: [...searchRoutes, ...this.workers.values()],
    };
    if (this.search === 'opensearch')
      this.openSearch = new OpenSearchSearch(this, 'OpenSearch', {
        ...searchProps,
        // Only what searches: the search routes and the workers of the workflows they start.
        readers: [...searchRoutes, ...searchWorkersOf(topology).map((name) => this.workers.get(name)!)],
        indexerEntry: sources.worker('search-opensearch-indexer'),
      });
    else
      this.searchIndex = new SearchIndex(this, 'SearchIndex', {
        ...searchProps,
        indexerEntry: sources.worker('search-indexer'),
      });

    // Last: it covers every function, queue and state machine made above.
    this.operability = new Operability(this, 'Operations', {
      topology,
      api: this.api,
      apiFunctions: new Set([fallback, ...this.routeFunctions.values()]),
      queues: this.queues,
      deadLetterQueues: this.deadLetterQueues,
      stateMachines: this.stateMachines,
      alarmEmail: props.alarmEmail ?? (this.node.tryGetContext('pds:alarmEmail') as string | undefined),
    });

    if (this.openSearch) this.operability.alarms.searchEngineAlarms(this.openSearch);
    this.createOutputs();
    // Last: the audit's answers cover every grant made above (lib/audit.ts).
    acknowledgeRepeatedFindings(this, {
      table: this.table,
      snapshotBucket: this.searchIndex?.bucket,
      domain: this.openSearch?.domain,
    });
  }

  /**
   * The state machine ARNs for the workers that may start executions. A task worker's ARN is in
   * its state machine's definition, so giving it that state machine's ARN back would be a
   * dependency cycle; it gets only the workflows its own drives (WORKFLOWS_DRIVEN_BY_TASKS).
   */
  private giveWorkersStateMachines(topology: Topology, taskWorkers: ReadonlySet<string>): void {
    for (const [name, fn] of this.workers) {
      if (taskWorkers.has(name)) continue;
      for (const [key, value] of Object.entries(this.stateMachineEnvironment(topology))) fn.addEnvironment(key, value);
    }
    for (const workflow of topology.workflows) {
      for (const drivenName of WORKFLOWS_DRIVEN_BY_TASKS[workflow.name] ?? []) {
        const driven = topology.workflows.find((w) => w.name === drivenName);
        const machine = this.stateMachines.get(drivenName);
        if (!driven || !machine) continue;
        for (const worker of new Set(Object.values(workflow.tasks))) {
          const fn = this.workers.get(worker)!;
          fn.addEnvironment(driven.envVar, machine.stateMachineArn);
          machine.grantStartExecution(fn);
          machine.grantExecution(fn, 'states:StopExecution', 'states:DescribeExecution');
        }
      }
    }
  }

  /** The HTTP API: a function per route of the table, and the fallback for everything else. */
  private createApi(
    topology: Topology,
    sources: SourceLayout,
    apiEnvironment: Record<string, string>,
  ): { api: HttpApi; fallback: NodejsFunction } {
    const fallback = nodeFunction(this, 'FallbackFn', {
      entry: sources.fallbackHandler,
      description: 'HTTP $default: unknown routes',
      memorySize: 256,
      timeoutSeconds: 10,
      environment: apiEnvironment,
      logs: 'api',
      role: this.functionRoles.roleFor(this.routePermissions({ scope: null, operationId: '$default' }, topology)),
    });
    const invokeRole = apiInvokeRole(this, 'ApiInvokeRole');
    const api = new HttpApi(this, 'Api', {
      description: 'Product-data API (legacy, v1, v2)',
      defaultIntegration: new RoleInvokedLambdaIntegration('FallbackIntegration', fallback, invokeRole),
    });
    acknowledge(api, {
      'AwsSolutions-APIG4':
        "Authentication is the service's own: API keys (stored hashed in the table) checked with their scopes by every handler's pipeline (lambdas/http/pipeline.ts), in each family's error shape; health, the OpenAPI document and the docs are public by the contract.",
    });
    for (const route of topology.routes) this.createRoute(api, route, topology, sources, apiEnvironment, invokeRole);
    acknowledge(invokeRole.node.findChild('DefaultPolicy'), {
      'AwsSolutions-IAM5':
        "cdk-nag's IAM5 rule cannot read this policy once CDK has moved the role's statements into overflow policies (it throws reading the document); its statements are lambda:InvokeFunction on the route handlers only (lib/api-integration.ts), and lib/audit.ts checks each of them before the move.",
    });
    return { api, fallback };
  }

  /**
   * What a route is granted, here and below (createRoute, grantEveryFunctionsQueues, the search
   * readers, the render function's callers): the key of the role it shares.
   */
  private routePermissions(route: Pick<Route, 'scope' | 'operationId'>, topology: Topology): PermissionSet {
    const authenticated = route.scope !== null;
    const workflows = route.scope ? (WORKFLOWS_FOR_SCOPE[route.scope] ?? []) : [];
    return {
      kind: 'route',
      table: authenticated,
      workflows: workflows.filter((name) => this.stateMachines.has(name)),
      sendsTo: authenticated ? queuesSentByEveryFunction(topology) : [],
      searches: route.scope === 'search',
      rendersDirectly: rendersDirectly(RENDERS_DIRECTLY.routes, route.operationId, this.workers),
    };
  }

  /** What a task worker is granted (createWorkers, giveWorkersStateMachines, the search readers, the render function's callers). */
  private taskPermissions(name: string, topology: Topology, workers: ReadonlySet<string>): PermissionSet {
    const driven = topology.workflows
      .filter((workflow) => Object.values(workflow.tasks).includes(name))
      .flatMap((workflow) => WORKFLOWS_DRIVEN_BY_TASKS[workflow.name] ?? [])
      .filter((drivenName) => topology.workflows.some((workflow) => workflow.name === drivenName));
    return {
      kind: 'task',
      table: true,
      workflows: driven,
      sendsTo: [
        ...queuesSentByEveryFunction(topology),
        ...topology.queues.filter((spec) => spec.sentBy?.includes(name)).map((spec) => spec.name),
      ],
      searches: this.search === 'snapshot' || searchWorkersOf(topology).includes(name),
      rendersDirectly: rendersDirectly(RENDERS_DIRECTLY.workers, name, workers),
    };
  }

  /** Queues any function may send to (webhook deliveries: every execution transition may enqueue one). */
  private grantEveryFunctionsQueues(topology: Topology): void {
    const senders = [
      ...topology.routes.filter((r) => r.scope !== null).map((r) => this.routeFunctions.get(r.operationId)!),
      ...this.workers.values(),
      ...this.scheduled.values(),
    ];
    for (const spec of topology.queues.filter((q) => q.sentByEveryFunction)) {
      for (const fn of senders) this.queues.get(spec.name)!.grantSendMessages(fn);
    }
  }

  private createOutputs(): void {
    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'DynamoDB table (npm run keys -- --table)',
    });
    for (const [name, machine] of this.stateMachines) {
      new CfnOutput(this, `${pascal(name)}StateMachineArn`, { value: machine.stateMachineArn });
    }
    for (const [name, queue] of this.queues) new CfnOutput(this, `${pascal(name)}QueueUrl`, { value: queue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.operability.alarms.topic.topicArn,
      description: 'SNS topic of every alarm',
    });
    new CfnOutput(this, 'DashboardName', {
      value: this.operability.dashboard.dashboard.dashboardName,
      description: 'CloudWatch dashboard',
    });
    new CfnOutput(this, 'ApiFunctionLogGroup', {
      value: sharedLogGroup(this, 'api').logGroupName,
      description: 'Log group of every HTTP handler',
    });
    new CfnOutput(this, 'WorkerFunctionLogGroup', {
      value: sharedLogGroup(this, 'workers').logGroupName,
      description: 'Log group of every worker',
    });
  }

  private createTable(removalPolicy: RemovalPolicy): Table {
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      // Keys only: the stream just wakes the search indexer, which reads through the change feed.
      stream: StreamViewType.KEYS_ONLY,
      timeToLiveAttribute: TABLE.timeToLive,
    });
    for (const index of TABLE.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }
    return table;
  }

  private createQueue(spec: QueueSpec): void {
    const id = `${pascal(spec.name)}Queue`;
    const visibilityTimeout = Duration.seconds(spec.visibilityTimeoutSeconds);
    const deadLetterQueue = new Queue(this, `${id}Dlq`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // Its consumer (if any) runs with the same timeout as the main queue's worker.
      visibilityTimeout,
    });
    const queue = new Queue(this, id, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
    });
    this.queues.set(spec.name, queue);
    this.deadLetterQueues.set(spec.name, deadLetterQueue);
  }

  private dataEnvironment(topology: Topology): Record<string, string> {
    const environment: Record<string, string> = { [ENV.tableName]: this.table.tableName };
    // Deploy-time settings from context values (`-c pds:affiliateLinkTemplate=...`); unset = the service's default.
    const linkTemplate = this.node.tryGetContext('pds:affiliateLinkTemplate') as string | undefined;
    if (linkTemplate) environment[ENV.affiliateLinkTemplate] = linkTemplate;
    for (const spec of topology.queues) environment[spec.envVar] = this.queues.get(spec.name)!.queueUrl;
    return environment;
  }

  private stateMachineEnvironment(topology: Topology): Record<string, string> {
    const environment: Record<string, string> = {};
    for (const workflow of topology.workflows) {
      environment[workflow.envVar] = this.stateMachines.get(workflow.name)!.stateMachineArn;
    }
    return environment;
  }

  private createWorkers(topology: Topology, sources: SourceLayout, taskWorkers: Set<string>): void {
    // A worker's timeout may not exceed the visibility timeout of any queue it consumes.
    const consumed = new Map<string, number[]>();
    const consume = (worker: string, seconds: number) =>
      consumed.set(worker, [...(consumed.get(worker) ?? []), seconds]);
    for (const spec of topology.queues) {
      consume(spec.worker, spec.visibilityTimeoutSeconds);
      if (spec.dlqWorker) consume(spec.dlqWorker, spec.visibilityTimeoutSeconds);
    }
    const names = new Set([...consumed.keys(), ...taskWorkers]);
    const environment = this.dataEnvironment(topology);
    for (const name of names) {
      const limits = consumed.get(name) ?? [];
      const props = {
        entry: sources.worker(name),
        description: `Worker ${name}`,
        memorySize: workerMemory(name),
        timeoutSeconds:
          limits.length > 0 ? Math.min(LAMBDA_MAX_TIMEOUT_SECONDS, ...limits) : TASK_WORKER_TIMEOUT_SECONDS,
        environment,
        // Task workers share a role per permission set; a queue's consumer is granted its queue, so keeps its own.
        role: consumed.has(name) ? undefined : this.functionRoles.roleFor(this.taskPermissions(name, topology, names)),
      };
      // The render worker ships Chromium (lib/render-worker.ts); its queue caps its instances.
      const maxConcurrency = topology.queues.find((spec) => spec.worker === name)?.maxConcurrency ?? 1;
      const fn =
        name === RENDER_WORKER
          ? renderWorkerFunction(this, `${pascal(name)}Fn`, { ...props, maxConcurrency })
          : nodeFunction(this, `${pascal(name)}Fn`, props);
      this.table.grantReadWriteData(fn);
      // Task tokens are the capability; the callback APIs take no state machine resource here
      // that could be named without a cycle (the state machine definition names this function).
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
          resources: ['*'],
        }),
      );
      this.workers.set(name, fn);
    }
    for (const spec of topology.queues) {
      const eventSource = (queue: Queue, maxConcurrency?: number) =>
        new SqsEventSource(queue, {
          batchSize: spec.batchSize,
          reportBatchItemFailures: true,
          // Batches above 10 messages need a batching window.
          maxBatchingWindow: spec.batchSize > 10 ? Duration.seconds(1) : undefined,
          // No more invocations than the worker's reserved instances: a throttled one would count as a receive.
          maxConcurrency,
        });
      this.workers.get(spec.worker)!.addEventSource(eventSource(this.queues.get(spec.name)!, spec.maxConcurrency));
      if (spec.dlqWorker)
        this.workers.get(spec.dlqWorker)!.addEventSource(eventSource(this.deadLetterQueues.get(spec.name)!));
      for (const sender of spec.sentBy ?? []) this.queues.get(spec.name)!.grantSendMessages(this.workers.get(sender)!);
    }
  }

  private createStateMachine(workflow: WorkflowSpec, sources: SourceLayout): void {
    const id = `${pascal(workflow.name)}StateMachine`;
    const aslPath = sources.stateMachine(workflow.aslFile);
    const aslText = readFileSync(aslPath, 'utf8');
    const definitionSubstitutions = buildSubstitutions(
      workflow,
      aslText,
      (worker) => this.workers.get(worker)!.functionArn,
      (queueName) => this.queues.get(queueName)!.queueUrl,
    );
    const logGroup = new LogGroup(this, `${id}Logs`, {
      // The vendedlogs prefix keeps CloudWatch's resource policy small across many machines.
      logGroupName: `/aws/vendedlogs/states/${this.stackName}-${workflow.name}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const machine = new StateMachine(this, id, {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(withDeadline(aslText, workflow, aslPath)),
      definitionSubstitutions,
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
    });
    // File-based definitions get no automatic grants: name every function and queue it uses.
    for (const worker of new Set(Object.values(workflow.tasks))) this.workers.get(worker)!.grantInvoke(machine);
    for (const queueName of new Set(Object.values(workflow.queues)))
      this.queues.get(queueName)!.grantSendMessages(machine);
    this.stateMachines.set(workflow.name, machine);
  }

  private createRoute(
    api: HttpApi,
    route: Route,
    topology: Topology,
    sources: SourceLayout,
    environment: Record<string, string>,
    invokeRole: Role,
  ): void {
    const id = pascal(route.operationId);
    const fn = nodeFunction(this, `Route${id}Fn`, {
      entry: sources.httpHandler(route.handler),
      description: `${route.method} ${route.path} (${route.operationId})`,
      ...httpSizing(route),
      environment,
      logs: 'api',
      role: this.functionRoles.roleFor(this.routePermissions(route, topology)),
    });
    // Authentication and usage metering read and write the table on every authenticated call.
    if (route.scope !== null) this.table.grantReadWriteData(fn);
    for (const workflowName of route.scope ? (WORKFLOWS_FOR_SCOPE[route.scope] ?? []) : []) {
      const machine = this.stateMachines.get(workflowName);
      if (!machine) continue;
      machine.grantStartExecution(fn);
      machine.grantExecution(fn, 'states:StopExecution', 'states:DescribeExecution');
    }
    api.addRoutes({
      path: route.path,
      methods: [HttpMethod[route.method]],
      integration: new RoleInvokedLambdaIntegration(`${id}Integration`, fn, invokeRole),
    });
    this.routeFunctions.set(route.operationId, fn);
  }

  private createSchedule(
    spec: ScheduleSpec,
    sources: SourceLayout,
    environment: Record<string, string>,
  ): NodejsFunction {
    const fn = nodeFunction(this, `${pascal(spec.name)}Fn`, {
      entry: sources.worker(spec.worker),
      description: `Worker ${spec.worker}: ${spec.description}`,
      memorySize: 512,
      timeoutSeconds: spec.timeoutSeconds,
      environment,
    });
    this.table.grantReadWriteData(fn);
    if (spec.stopsExecutions) {
      for (const machine of this.stateMachines.values()) {
        machine.grantRead(fn);
        machine.grantExecution(fn, 'states:StopExecution');
      }
    }
    new Rule(this, `${pascal(spec.name)}Schedule`, {
      description: spec.description,
      schedule: Schedule.rate(Duration.minutes(spec.everyMinutes)),
      targets: [new LambdaFunction(fn)],
    });
    this.scheduled.set(spec.name, fn);
    return fn;
  }
}

/** The queues every authenticated route, worker and scheduled function sends to. */
const queuesSentByEveryFunction = (topology: Topology): string[] =>
  topology.queues.filter((spec) => spec.sentByEveryFunction).map((spec) => spec.name);

/** Whether a function invokes the render function's direct entry: it is one of `callers`, and the stack renders. */
const rendersDirectly = (
  callers: readonly string[],
  name: string,
  workers: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): boolean => callers.includes(name) && workers.has(RENDER_WORKER);

/** The workers of the workflows search routes start (their tasks, and their queues' consumers). */
function searchWorkersOf(topology: Topology): string[] {
  const workflows = topology.workflows.filter((w) => WORKFLOWS_FOR_SCOPE.search?.includes(w.name));
  const queues = new Set(workflows.flatMap((w) => Object.values(w.queues)));
  const consumers = topology.queues
    .filter((spec) => queues.has(spec.name))
    .flatMap((spec) => (spec.dlqWorker ? [spec.worker, spec.dlqWorker] : [spec.worker]));
  return [...new Set([...workflows.flatMap((w) => Object.values(w.tasks)), ...consumers])];
}

/** The context value `pds:search`: `snapshot` (unset) or `opensearch`. */
function searchEngineOf(value: unknown): 'snapshot' | 'opensearch' {
  const engine = String(value ?? 'snapshot').toLowerCase();
  if (engine !== 'snapshot' && engine !== 'opensearch')
    throw new Error(`Context pds:search must be "snapshot" or "opensearch", got "${engine}"`);
  return engine;
}

/**
 * The ASL with the workflow's execution deadline. CDK applies `timeout` only to definitions it
 * builds itself (a file-based body would silently drop it), so it is written into the JSON.
 */
function withDeadline(aslText: string, workflow: WorkflowSpec, aslPath: string): string {
  let definition: Record<string, unknown>;
  try {
    definition = JSON.parse(aslText);
  } catch (error) {
    throw new Error(`Workflow "${workflow.name}": ${aslPath} is not valid JSON (${(error as Error).message})`);
  }
  return JSON.stringify({ ...definition, TimeoutSeconds: workflow.timeoutSeconds }, null, 2);
}

/** Fails synth early, naming every missing file and every dangling name in the tables. */
function checkTopology(topology: Topology, sources: SourceLayout): void {
  const problems: string[] = [];
  const queueNames = new Set(topology.queues.map((q) => q.name));
  const seen = new Set<string>();
  for (const route of topology.routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) problems.push(`duplicate route ${key}`);
    seen.add(key);
  }
  for (const workflow of topology.workflows) {
    for (const queueName of Object.values(workflow.queues)) {
      if (!queueNames.has(queueName)) problems.push(`workflow "${workflow.name}" names unknown queue "${queueName}"`);
    }
  }
  if (problems.length > 0) throw new Error(`ProductDataStack: invalid topology:\n  - ${problems.join('\n  - ')}`);

  const needed: Array<{ file: string; usedBy: string }> = [
    { file: sources.fallbackHandler, usedBy: 'HTTP $default route' },
    ...topology.routes.map((route) => ({
      file: sources.httpHandler(route.handler),
      usedBy: `route ${route.operationId}`,
    })),
    ...topology.queues.flatMap((spec) => [
      { file: sources.worker(spec.worker), usedBy: `queue ${spec.name} worker` },
      ...(spec.dlqWorker ? [{ file: sources.worker(spec.dlqWorker), usedBy: `queue ${spec.name} DLQ worker` }] : []),
    ]),
    ...topology.workflows.flatMap((workflow) => [
      { file: sources.stateMachine(workflow.aslFile), usedBy: `workflow ${workflow.name}` },
      ...Object.entries(workflow.tasks).map(([fnKey, worker]) => ({
        file: sources.worker(worker),
        usedBy: `workflow ${workflow.name} task ${fnKey}`,
      })),
    ]),
    ...topology.schedules.map((spec) => ({ file: sources.worker(spec.worker), usedBy: `schedule ${spec.name}` })),
  ];
  assertSourcesExist(sources, needed);
}
