// The dashboard and the alarms read the service's own metrics by namespace, name and the exact
// set of dimensions: CloudWatch matches all of them or shows nothing. This runs the real EMF
// adapter (Powertools Metrics) and the HTTP pipeline's recorder, and compares what they print
// with what lib/metric-names.ts asks CloudWatch for.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emfMetrics } from '../../lambdas/adapters/metrics';
import { recordRequest } from '../../lambdas/observability/api-metrics';
import { serviceMetric } from '../../lib/metric-names';
import { METRICS_NAMESPACE } from '../../lambdas/topology/metrics';

type Emf = {
  _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
} & Record<string, unknown>;

function captureEmf(emit: () => void): Emf[] {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    emit();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((text) => text.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);
}

/** What CloudWatch files a data point under: namespace, name and dimension values. */
const keyOfEmf = (doc: Emf) => {
  const directive = doc._aws.CloudWatchMetrics[0];
  const dimensions = Object.fromEntries(directive.Dimensions[0].map((name) => [name, String(doc[name])]));
  return { namespace: directive.Namespace, name: directive.Metrics[0].Name, dimensions };
};
const keyOfMetric = (metric: ReturnType<typeof serviceMetric>) => ({
  namespace: metric.namespace,
  name: metric.metricName,
  dimensions: metric.dimensions,
});

afterEach(() => vi.restoreAllMocks());

describe('service metrics as the dashboard and alarms read them', () => {
  it('execution metrics: the names and dimensions the executions service emits', () => {
    const metrics = emfMetrics();
    const docs = captureEmf(() => {
      metrics.count('StalledExecutionsReaped', 1, { kind: 'crawl' });
      metrics.count('CreditsUsed', 7, { kind: 'extract-urls' });
      metrics.count('UrlOutcomes', 3, { kind: 'extract-urls', outcome: 'success' });
      metrics.milliseconds('ExecutionDuration', 1200, { kind: 'agentic' });
    });
    expect(docs.map(keyOfEmf)).toEqual([
      keyOfMetric(serviceMetric('StalledExecutionsReaped', { kind: 'crawl' })),
      keyOfMetric(serviceMetric('CreditsUsed', { kind: 'extract-urls' })),
      keyOfMetric(serviceMetric('UrlOutcomes', { kind: 'extract-urls', outcome: 'success' })),
      keyOfMetric(serviceMetric('ExecutionDuration', { kind: 'agentic' })),
    ]);
    expect(docs[0]._aws.CloudWatchMetrics[0].Namespace).toBe(METRICS_NAMESPACE);
  });

  it('API metrics per family: requests and latency always, errors by class, nothing for public routes', () => {
    const metrics = emfMetrics();
    const docs = captureEmf(() => {
      recordRequest(metrics, 'v2', 200, 12);
      recordRequest(metrics, 'legacy', 404, 3);
      recordRequest(metrics, 'v1', 503, 30);
      recordRequest(metrics, 'public', 500, 1);
    });
    expect(docs.map(keyOfEmf)).toEqual([
      keyOfMetric(serviceMetric('ApiRequests', { family: 'v2' })),
      keyOfMetric(serviceMetric('ApiLatency', { family: 'v2' })),
      keyOfMetric(serviceMetric('ApiRequests', { family: 'legacy' })),
      keyOfMetric(serviceMetric('ApiLatency', { family: 'legacy' })),
      keyOfMetric(serviceMetric('ApiErrors', { family: 'legacy', class: '4xx' })),
      keyOfMetric(serviceMetric('ApiRequests', { family: 'v1' })),
      keyOfMetric(serviceMetric('ApiLatency', { family: 'v1' })),
      keyOfMetric(serviceMetric('ApiErrors', { family: 'v1', class: '5xx' })),
    ]);
    expect(docs[1].ApiLatency).toBe(12);
  });
});
