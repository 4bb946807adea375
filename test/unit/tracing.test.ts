// X-Ray annotations (lambdas/observability/tracing.ts): off Lambda nothing is loaded and work runs
// as is; on, each invocation runs in its own subsegment carrying the execution id and
// organization, errors recorded, the parent restored. The ids come from worker events (task
// input, SQS bodies) and start responses.
import AWSXRay from 'aws-xray-sdk-core';
import { describe, expect, it } from 'vitest';
import {
  activeTracer,
  ANNOTATIONS,
  annotate,
  enableTracing,
  executionIdInBody,
  executionIdOf,
  prepareTracing,
  traced,
} from '../../lambdas/observability/tracing';

describe('execution ids of events and responses', () => {
  it('reads a Step Functions task input and SQS message bodies (several executions joined)', () => {
    expect(executionIdOf({ executionId: 'extract-urls-1' })).toBe('extract-urls-1');
    const sqs = (...bodies: string[]) => ({ Records: bodies.map((body) => ({ body })) });
    expect(executionIdOf(sqs(JSON.stringify({ executionId: 'crawl-a-1', TaskToken: 't' })))).toBe('crawl-a-1');
    expect(
      executionIdOf(
        sqs(
          JSON.stringify({ executionId: 'a' }),
          JSON.stringify({ executionId: 'b' }),
          JSON.stringify({ executionId: 'a' }),
        ),
      ),
    ).toBe('a,b');
    expect(executionIdOf(sqs('not json', JSON.stringify({ other: 1 })))).toBeUndefined();
    expect(executionIdOf(undefined)).toBeUndefined();
    expect(executionIdOf({ executionId: 42 })).toBeUndefined();
  });

  it('reads the id a start operation answers with', () => {
    expect(executionIdInBody(JSON.stringify({ success: true, execution_id: 'extract-shop-example-9f' }))).toBe(
      'extract-shop-example-9f',
    );
    expect(executionIdInBody(JSON.stringify({ data: [] }))).toBeUndefined();
    expect(executionIdInBody(undefined)).toBeUndefined();
  });
});

describe('tracing', () => {
  it('is a no-op when off: nothing loaded, work runs, annotations ignored', async () => {
    await prepareTracing({ config: { tracing: false }, clients: {} });
    expect(activeTracer()).toBeUndefined();
    annotate({ organization: 'org-a' });
    await expect(traced('## op', { [ANNOTATIONS.executionId]: 'x' }, async () => 7)).resolves.toBe(7);
  });

  it('when on, runs each invocation in an annotated subsegment, records errors and restores the parent', async () => {
    // Powertools Tracer also stays dormant outside a Lambda execution environment.
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x';
    const tracer = (await enableTracing(true))!;
    expect(tracer.isTracingEnabled()).toBe(true);
    expect(activeTracer()).toBe(tracer);
    const namespace = AWSXRay.getNamespace();
    await namespace.runPromise(async () => {
      const parent = new AWSXRay.Segment('function');
      tracer.setSegment(parent);
      let inner: unknown;
      await traced(
        '## v2ExtractStatus',
        { [ANNOTATIONS.operation]: 'v2ExtractStatus', [ANNOTATIONS.executionId]: 'extract-urls-1' },
        async () => {
          annotate({ [ANNOTATIONS.organization]: 'org-a', empty: '' });
          inner = tracer.getSegment();
        },
      );
      await expect(
        traced('## worker', { [ANNOTATIONS.executionId]: 'crawl-b-2' }, async () => {
          throw new Error('step failed');
        }),
      ).rejects.toThrow('step failed');
      expect(tracer.getSegment()).toBe(parent);
      const [ok, failed] = parent.subsegments as unknown as Array<{
        name: string;
        annotations: Record<string, unknown>;
        fault?: boolean;
        error?: boolean;
        cause?: unknown;
        in_progress?: boolean;
      }>;
      expect(inner).toBe(ok);
      expect(ok.name).toBe('## v2ExtractStatus');
      expect(ok.annotations).toMatchObject({
        operation: 'v2ExtractStatus',
        execution_id: 'extract-urls-1',
        organization: 'org-a',
      });
      expect(ok.annotations).not.toHaveProperty('empty');
      expect(ok.in_progress).toBeFalsy();
      expect(failed.annotations).toMatchObject({ execution_id: 'crawl-b-2' });
      expect(failed.fault || failed.error).toBe(true);
    });
    delete process.env.AWS_EXECUTION_ENV;
  });
});
