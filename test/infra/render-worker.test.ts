// The render worker on AWS (lib/render-worker.ts, from the real queue table): its function
// (x86_64, measured memory, capped concurrency), its queue with a DLQ, enforced TLS and an alarm,
// who may send to it, and its asset: the bundle with the browser packages beside it, which load
// from there in a fresh Node process the way Lambda loads them (an ES module's import()).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductDataStack } from '../../lib/product-data-stack';
import {
  RENDER_DIRECT_CONCURRENCY,
  RENDER_MEMORY_MB,
  RENDERS_DIRECTLY,
  stageRenderWorker,
} from '../../lib/render-worker';
import { ENV } from '../../lambdas/topology/env';
import { projectLayout } from '../../lib/source-layout';
import { QUEUES, RENDER_QUEUE } from '../../lambdas/topology/queues';
import { realStack } from './helpers';
import { actionsOf, mentions, resourcesOf, roleOfFunction, statementsOfRole } from './template-queries';

const run = promisify(execFile);
const spec = QUEUES.find((queue) => queue.name === RENDER_QUEUE)!;
let stack: ProductDataStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = realStack());
});

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as never);
const functionOf = (name: string) =>
  resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(stack.workers.get(name)!)];

function sends(worker: string, queueId: string): boolean {
  const roleId = roleOfFunction(functionOf(worker));
  return statementsOfRole(template, roleId).some(
    (s) => actionsOf(s).includes('sqs:SendMessage') && mentions(s.Resource, queueId),
  );
}

describe('render worker stack', () => {
  it('is an x86_64 function of 2048 MB with reserved concurrency, its timeout within the queue visibility', () => {
    const fn = functionOf('render-worker').Properties!;
    expect(fn.Architectures).toEqual(['x86_64']);
    expect(fn.MemorySize).toBe(RENDER_MEMORY_MB);
    expect(RENDER_MEMORY_MB).toBe(2048);
    expect(fn.ReservedConcurrentExecutions).toBe(spec.maxConcurrency);
    expect(spec.maxConcurrency).toBeGreaterThan(1);
    expect(fn.Timeout).toBeLessThanOrEqual(spec.visibilityTimeoutSeconds);
    expect(fn.Runtime).toBe('nodejs22.x');
    // Its dead letters need no browser: an ordinary arm64 worker.
    expect(functionOf('render-dlq').Properties!.Architectures).toEqual(['arm64']);
    expect(functionOf('render-dlq').Properties!.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('consumes its queue with at most its reserved instances; the queue has a DLQ, TLS enforced and a DLQ alarm', () => {
    const queueId = logicalIdOf(stack.queues.get(RENDER_QUEUE)!);
    const dlqId = logicalIdOf(stack.deadLetterQueues.get(RENDER_QUEUE)!);
    const queue = resourcesOf(template, 'AWS::SQS::Queue')[queueId].Properties!;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 2 });
    expect(queue.VisibilityTimeout).toBe(spec.visibilityTimeoutSeconds);
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).map((m) => m.Properties!);
    const own = mappings.find((m) => mentions(m.EventSourceArn, queueId))!;
    expect(mentions(own.FunctionName, logicalIdOf(stack.workers.get('render-worker')!))).toBe(true);
    expect(own.ScalingConfig).toEqual({ MaximumConcurrency: spec.maxConcurrency });
    expect(own.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    const dead = mappings.find((m) => mentions(m.EventSourceArn, dlqId))!;
    expect(mentions(dead.FunctionName, logicalIdOf(stack.workers.get('render-dlq')!))).toBe(true);
    for (const id of [queueId, dlqId]) {
      const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy')).filter((p) =>
        mentions(p.Properties!.Queues, id),
      );
      const statements = policies.flatMap((p) => p.Properties!.PolicyDocument.Statement);
      expect(statements, id).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
    const alarm = stack.operability.alarms.alarms.get(`dlq:${RENDER_QUEUE}`);
    expect(alarm).toBeDefined();
    expect(
      JSON.stringify(template.toJSON().Resources[stack.getLogicalId(alarm!.node.defaultChild as never)]),
    ).toContain(dlqId);
  });

  it('the extract worker may send to the render queue; the routes may not', () => {
    const queueId = logicalIdOf(stack.queues.get(RENDER_QUEUE)!);
    expect(sends('extract-worker', queueId)).toBe(true);
    expect(sends('crawl-worker', queueId)).toBe(false);
    const route = stack.routeFunctions.get('legacyProduct')!;
    const roleId = roleOfFunction(resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(route)]);
    expect(
      statementsOfRole(template, roleId).some(
        (s) => actionsOf(s).includes('sqs:SendMessage') && mentions(s.Resource, queueId),
      ),
    ).toBe(false);
  });
});

describe("the render function's direct entry", () => {
  const direct = () => resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(stack.renderDirect!)];
  const invokes = (fn: { node: { defaultChild?: unknown } }) =>
    statementsOfRole(template, roleOfFunction(resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(fn)]))
      .filter((s) => actionsOf(s).includes('lambda:InvokeFunction'))
      .map((s) => s.Resource);
  const callers = () => [
    ...RENDERS_DIRECTLY.routes.map((name) => stack.routeFunctions.get(name)!),
    ...RENDERS_DIRECTLY.workers.map((name) => stack.workers.get(name)!),
  ];

  it("is a function of its own from the same asset, handler direct.handler, its instances apart from the queue worker's", () => {
    const fn = direct().Properties!;
    const worker = functionOf('render-worker').Properties!;
    expect(fn.Handler).toBe('direct.handler');
    expect(worker.Handler).toBe('index.handler');
    expect(fn.Code).toEqual(worker.Code);
    expect(fn.Architectures).toEqual(['x86_64']);
    expect(fn.MemorySize).toBe(RENDER_MEMORY_MB);
    expect(fn.ReservedConcurrentExecutions).toBe(RENDER_DIRECT_CONCURRENCY);
    // Long enough for a cold start and a page's budget; no queue feeds it.
    expect(fn.Timeout).toBeGreaterThanOrEqual(30);
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings.some((m) => mentions(m.Properties!.FunctionName, logicalIdOf(stack.renderDirect!)))).toBe(false);
    // It renders: no render function of its own to ask.
    expect(fn.Environment.Variables[ENV.renderFunction]).toBeUndefined();
  });

  it('the synchronous functions may invoke it, and only it, and are told its name', () => {
    const directId = logicalIdOf(stack.renderDirect!);
    expect(callers().map((fn) => fn.node.id)).toEqual([
      'RouteLegacyProductFn',
      'RouteLegacyProductsFn',
      'RouteV1AgenticSearchFn',
      'AgenticVerifyFn',
    ]);
    for (const fn of callers()) {
      const resources = invokes(fn).flatMap((r) => (Array.isArray(r) ? r : [r]));
      expect(resources.length, fn.node.id).toBeGreaterThan(0);
      for (const resource of resources) expect(mentions(resource, directId), fn.node.id).toBe(true);
      const env = resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(fn)].Properties!.Environment.Variables;
      expect(env[ENV.renderFunction], fn.node.id).toEqual({ Ref: directId });
    }
  });

  it('no other function may invoke it or is told its name', () => {
    const directId = logicalIdOf(stack.renderDirect!);
    const allowed = new Set(callers().map((fn) => logicalIdOf(fn)));
    for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
      if (allowed.has(id) || !fn.Properties!.Role) continue;
      expect(fn.Properties!.Environment?.Variables?.[ENV.renderFunction], id).toBeUndefined();
      const granted = statementsOfRole(template, roleOfFunction(fn)).filter(
        (s) => actionsOf(s).includes('lambda:InvokeFunction') && mentions(s.Resource, directId),
      );
      expect(granted, id).toEqual([]);
    }
  });
});

describe('render worker asset', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'pds-render-asset-'));
  beforeAll(() => stageRenderWorker(projectLayout(process.cwd()).worker('render-worker'), out), 300_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const sizeOf = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (sum, entry) =>
        sum + (entry.isDirectory() ? sizeOf(path.join(dir, entry.name)) : statSync(path.join(dir, entry.name)).size),
      0,
    );

  it("holds the bundle and the browser packages, Chromium's bin folder included, under Lambda's 250 MB", () => {
    expect(existsSync(path.join(out, 'index.mjs'))).toBe(true);
    expect(existsSync(path.join(out, 'direct.mjs'))).toBe(true);
    const bin = readdirSync(path.join(out, 'node_modules/@sparticuz/chromium/bin'));
    expect(bin).toEqual(expect.arrayContaining(['chromium.br', 'al2023.tar.br', 'fonts.tar.br']));
    expect(existsSync(path.join(out, 'node_modules/playwright-core/package.json'))).toBe(true);
    expect(sizeOf(out)).toBeLessThan(250 * 1024 * 1024);
  });

  it('loads from the asset alone: the handler, and both browser packages through import() as the adapter does', async () => {
    // Run from a folder with no node_modules above it, so nothing resolves outside the asset.
    const script = `
      const m = await import('./index.mjs');
      const d = await import('./direct.mjs');
      const chromium = (await import('@sparticuz/chromium')).default;
      const { chromium: playwright } = await import('playwright-core');
      console.log(JSON.stringify({
        handler: typeof m.handler,
        direct: typeof d.handler,
        chromium: import.meta.resolve('@sparticuz/chromium'),
        executablePath: typeof chromium.executablePath,
        launch: typeof playwright.launch,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: out,
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', PDS_TABLE_NAME: 'pds' },
    });
    const loaded = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(loaded).toMatchObject({
      handler: 'function',
      direct: 'function',
      executablePath: 'function',
      launch: 'function',
    });
    expect(loaded.chromium.startsWith(`file://${out}/node_modules/@sparticuz/chromium/`)).toBe(true);
  });
});
