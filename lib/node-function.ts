// One way to build every Lambda of the service: Node.js 22 on arm64, bundled locally by esbuild
// into ESM (no Docker), JSON logs into one of two shared log groups with a retention, active
// X-Ray tracing, source maps on.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface NodeFunctionProps {
  entry: string;
  description: string;
  memorySize: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
  /** Which shared log group: the HTTP handlers' or the workers' (default). */
  logs?: FunctionLogs;
}

export type FunctionLogs = 'api' | 'workers';

/** How long function and state machine logs are kept. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

const LOG_GROUP_IDS: Record<FunctionLogs, string> = { api: 'ApiFunctionLogs', workers: 'WorkerFunctionLogs' };

/**
 * The stack's shared log group of one kind of function. One group per kind instead of one per
 * function keeps ~70 resources out of the template (CloudFormation allows 500) and lets one Logs
 * Insights query span every route; each function still writes its own log streams
 * (`<date>/<function name>[$LATEST]...`).
 */
export function sharedLogGroup(scope: Construct, kind: FunctionLogs): LogGroup {
  const stack = Stack.of(scope);
  const existing = stack.node.tryFindChild(LOG_GROUP_IDS[kind]);
  if (existing) return existing as LogGroup;
  return new LogGroup(stack, LOG_GROUP_IDS[kind], { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
}

// ESM bundles still meet CommonJS dependencies that call require() for Node built-ins.
const REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export function nodeFunction(scope: Construct, id: string, props: NodeFunctionProps): NodejsFunction {
  return new NodejsFunction(scope, id, {
    entry: props.entry,
    handler: 'handler',
    description: props.description,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize,
    timeout: Duration.seconds(props.timeoutSeconds),
    loggingFormat: LoggingFormat.JSON,
    logGroup: sharedLogGroup(scope, props.logs ?? 'workers'),
    tracing: Tracing.ACTIVE,
    environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
    bundling: {
      forceDockerBundling: false,
      format: OutputFormat.ESM,
      target: 'node22',
      mainFields: ['module', 'main'],
      banner: REQUIRE_BANNER,
      minify: true,
      sourceMap: true,
      sourceMapMode: SourceMapMode.DEFAULT,
      sourcesContent: false,
      // Per-file size listings for ~50 bundles drown real warnings.
      logLevel: LogLevel.WARNING,
      // Bundle the SDK: the pinned 3.x in package-lock is what the tests ran against, not
      // whatever the managed runtime ships this month.
      bundleAwsSDK: true,
    },
  });
}
