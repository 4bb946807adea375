// Builds the stack the way bin/app.ts does (same cdk.json context), over fixture sources. The two
// stacks most tests read are synthesized once per test process (fixtureStack, realStack); a test
// reads them and never changes them. CDK's built-in CloudFormation validation (a WASM rule engine:
// ~10 s of CPU to start in each process, ~1 s per synth) runs where the deployable stacks are
// synthesized as `npm run synth` does, with cdk-nag (nag.test.ts); the stacks here skip it (it
// changes no template).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ProductDataStack, type ProductDataStackProps } from '../../lib/product-data-stack';
import type { SourceLayout } from '../../lib/source-layout';
import type { QueueSpec } from '../../lambdas/topology/queues';
import { ROUTES } from '../../lambdas/topology/routes';
import type { WorkflowSpec } from '../../lambdas/topology/workflows';

export const ROOT = process.cwd();
export const FIXTURES = path.join(ROOT, 'test', 'infra', 'fixtures');
export const FIXTURE_HANDLER = path.join(FIXTURES, 'handler.ts');

const cdkContext = (): Record<string, unknown> => JSON.parse(readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')).context;

/** Every module resolves to the fixture handler; ASL files come from fixtures/statemachines. */
export function fixtureLayout(overrides: Partial<SourceLayout> = {}): SourceLayout {
  return {
    rootDir: ROOT,
    httpHandler: () => FIXTURE_HANDLER,
    worker: () => FIXTURE_HANDLER,
    stateMachine: (aslFile) => path.join(FIXTURES, 'statemachines', aslFile),
    fallbackHandler: FIXTURE_HANDLER,
    ...overrides,
  };
}

export const FIXTURE_QUEUES: QueueSpec[] = [
  {
    name: 'extract-work',
    worker: 'extract-worker',
    dlqWorker: 'extract-dead-letter',
    batchSize: 1,
    visibilityTimeoutSeconds: 300,
    maxReceiveCount: 3,
    envVar: 'PDS_EXTRACT_QUEUE_URL',
  },
  {
    name: 'crawl-work',
    worker: 'crawl-worker',
    batchSize: 20,
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    envVar: 'PDS_CRAWL_QUEUE_URL',
  },
];

export const FIXTURE_WORKFLOWS: WorkflowSpec[] = [
  {
    name: 'extract',
    aslFile: 'fan-out.asl.json',
    tasks: { Prepare: 'extract-prepare', Finish: 'extract-finish' },
    queues: { Work: 'extract-work' },
    envVar: 'PDS_EXTRACT_STATE_MACHINE_ARN',
    timeoutSeconds: 3600,
  },
  {
    name: 'crawl',
    aslFile: 'fan-out.asl.json',
    tasks: { Prepare: 'crawl-prepare', Finish: 'crawl-finish' },
    queues: { Work: 'crawl-work' },
    envVar: 'PDS_CRAWL_STATE_MACHINE_ARN',
    timeoutSeconds: 7200,
  },
];

export function synthStack(
  props: ProductDataStackProps,
  {
    bundling = false,
    outdir,
    context: extra = {},
    change,
  }: {
    bundling?: boolean;
    outdir?: string;
    context?: Record<string, unknown>;
    /** Applied to the stack before it is synthesized. */
    change?: (stack: ProductDataStack) => void;
  } = {},
) {
  const context = { ...cdkContext(), ...(bundling ? {} : { 'aws:cdk:bundling-stacks': [] }), ...extra };
  const app = new App({ context, outdir, builtinCloudFormationValidation: false });
  const stack = new ProductDataStack(app, 'TestStack', { env: { region: 'eu-west-1' }, ...props });
  change?.(stack);
  return { app, stack, template: Template.fromStack(stack) };
}

type Synthesized = ReturnType<typeof synthStack>;
let fixture: Synthesized | undefined;
let real: Synthesized | undefined;

/** The real route table over the fixture handler, with the fixture queues and workflows. */
export function fixtureStack(): Synthesized {
  fixture ??= synthStack({
    sources: fixtureLayout(),
    topology: { routes: ROUTES, queues: FIXTURE_QUEUES, workflows: FIXTURE_WORKFLOWS },
  });
  return fixture;
}

/** The stack `npm run synth` builds (repository sources, every topology table), without bundling. */
export function realStack(): Synthesized {
  real ??= synthStack({});
  return real;
}
