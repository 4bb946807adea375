// One way to build every Lambda of the service: Node.js 22 on arm64, bundled locally by esbuild
// into ESM (no Docker), JSON logs, source maps on.
import { Duration } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';

export interface NodeFunctionProps {
  entry: string;
  description: string;
  memorySize: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
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
