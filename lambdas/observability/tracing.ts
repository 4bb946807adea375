// X-Ray through Powertools Tracer. The stack turns on active tracing for every function and state
// machine; this module puts the execution id and organization on each invocation's subsegment
// (searchable annotations: `annotation.execution_id = "extract-urls-..."`) and records AWS SDK
// calls as subsegments, so "my job is stuck" leads from the id to the slow call. Off Lambda
// (Config.tracing false) every function here is a no-op and the X-Ray SDK is never loaded.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { onAdoptedClient, type AwsClients } from '../adapters/clients';

export const TRACE_SERVICE_NAME = 'product-data-service';

/** Annotation keys operators search by in the X-Ray console (fixed: dashboards and runbooks quote them). */
export const ANNOTATIONS = {
  executionId: 'execution_id',
  organization: 'organization',
  operation: 'operation',
  worker: 'worker',
} as const;

let tracer: Tracer | undefined;

/** Loads the tracer once when tracing is on; later calls with false keep whatever is loaded. */
export async function enableTracing(enabled: boolean): Promise<Tracer | undefined> {
  if (!enabled || tracer) return tracer;
  const { Tracer: TracerClass } = await import('@aws-lambda-powertools/tracer');
  tracer ??= new TracerClass({ serviceName: TRACE_SERVICE_NAME, enabled: true, captureHTTPsRequests: true });
  return tracer;
}

/** The loaded tracer, if tracing is on in this process. */
export const activeTracer = (): Tracer | undefined => tracer;

const prepared = new WeakSet<object>();

/**
 * Before an invocation: loads the tracer when the container's config asks for tracing and, once
 * per container, records every call of its AWS SDK v3 clients as an X-Ray subsegment: those
 * built, and those a module loaded later builds and adopts (the Step Functions client).
 */
export async function prepareTracing(deps: { config: { tracing: boolean }; clients: object }): Promise<void> {
  const active = await enableTracing(deps.config.tracing);
  if (!active || prepared.has(deps)) return;
  prepared.add(deps);
  const capture = (client: unknown) => {
    try {
      active.captureAWSv3Client(client as never);
    } catch {
      // A client sharing another's middleware stack (the document client) is captured already.
    }
  };
  for (const client of Object.values(deps.clients)) capture(client);
  for (const client of onAdoptedClient(deps.clients as AwsClients, capture)) capture(client);
}

/** Adds annotations to the current subsegment (empty values are skipped; X-Ray caps them at 1000 chars). */
export function annotate(values: Record<string, string | undefined | null>): void {
  if (!tracer) return;
  for (const [key, value] of Object.entries(values)) if (value) tracer.putAnnotation(key, value.slice(0, 1000));
}

/**
 * Runs `work` inside its own subsegment (Lambda's function segment cannot carry annotations),
 * annotated with `values`; errors are recorded on it and rethrown.
 */
export async function traced<T>(
  name: string,
  values: Record<string, string | undefined | null>,
  work: () => Promise<T>,
): Promise<T> {
  const parent = tracer?.getSegment();
  if (!tracer || !parent) return work();
  const segment = parent.addNewSubsegment(name);
  tracer.setSegment(segment);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
  annotate(values);
  try {
    return await work();
  } catch (error) {
    segment.addError(error as Error);
    throw error;
  } finally {
    segment.close();
    tracer.setSegment(parent);
  }
}

/** The execution id a worker event names: a Step Functions task input or SQS message bodies. */
export function executionIdOf(event: unknown): string | undefined {
  if (!event || typeof event !== 'object') return undefined;
  const direct = (event as { executionId?: unknown }).executionId;
  if (typeof direct === 'string') return direct;
  const records = (event as { Records?: Array<{ body?: unknown }> }).Records;
  if (!Array.isArray(records)) return undefined;
  const ids = new Set<string>();
  for (const record of records) {
    if (typeof record?.body !== 'string') continue;
    try {
      const id = (JSON.parse(record.body) as { executionId?: unknown }).executionId;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // not JSON: nothing to annotate
    }
  }
  // A batch of several executions is annotated with all of them (searchable by `contains`).
  return ids.size > 0 ? [...ids].join(',') : undefined;
}

/** The execution id a start operation answers with (`"execution_id":"..."` in its JSON body). */
export function executionIdInBody(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  return /"execution_id":"([^"\\]{1,200})"/.exec(body.slice(0, 4096))?.[1];
}
