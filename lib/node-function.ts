// One way to build every Lambda of the service: Node.js 22 on arm64, bundled locally by esbuild
// into an ESM entry and its chunks (lib/bundle.ts, no Docker), JSON logs into one of two shared log groups with
// a retention, active X-Ray tracing.
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Architecture, Code, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundleFunctions } from './bundle';

export interface NodeFunctionProps {
  entry: string;
  description: string;
  memorySize: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
  /** Which shared log group: the HTTP handlers' or the workers' (default). */
  logs?: FunctionLogs;
  /** A role shared with the functions of the same permission set (lib/function-roles.ts); default its own. */
  role?: IRole;
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

/**
 * The function's code: index.mjs and chunks/, built in process by lib/bundle.ts (the same build the bundle
 * test and the cold-start bench run; NodejsFunction's own bundling would spawn esbuild with its
 * own flags). Hashed by output, so an unchanged bundle is not uploaded again; when a test skips
 * bundling, CDK hashes without reading the sources.
 */
export function bundledCode(entry: string): Code {
  return Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // Part of CDK's bundling cache key: two entries of one folder never share a cached bundle.
      command: ['esbuild', path.basename(entry)],
      local: {
        tryBundle(outputDir: string): boolean {
          bundleFunctions({ index: entry }, outputDir);
          return true;
        },
      },
    },
  });
}

export function nodeFunction(scope: Construct, id: string, props: NodeFunctionProps): NodejsFunction {
  // NodejsFunction for its Node.js defaults; the code is the bundle (index.mjs and its chunks).
  return new NodejsFunction(scope, id, {
    code: bundledCode(props.entry),
    handler: 'index.handler',
    description: props.description,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize,
    timeout: Duration.seconds(props.timeoutSeconds),
    loggingFormat: LoggingFormat.JSON,
    logGroup: sharedLogGroup(scope, props.logs ?? 'workers'),
    tracing: Tracing.ACTIVE,
    environment: props.environment,
    role: props.role,
  });
}
