// MetricsRecorder adapters. On Lambda: CloudWatch embedded metric format through Powertools
// Metrics, one EMF line per data point with its dimensions (the dashboard's source). Locally: an
// in-memory tally, so `npm start` does not print EMF documents between its request lines.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricsRecorder } from '../ports/metrics';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../topology/metrics';

export function emfMetrics(namespace = METRICS_NAMESPACE): MetricsRecorder {
  const metrics = new Metrics({ namespace, serviceName: METRICS_SERVICE });
  const emit = (
    name: string,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
    dimensions: Record<string, string> = {},
  ) => {
    const single = metrics.singleMetric();
    for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
    single.addMetric(name, unit, value); // a single metric is published at once
  };
  return {
    count: (name, value = 1, dimensions) => emit(name, MetricUnit.Count, value, dimensions),
    milliseconds: (name, value, dimensions) => emit(name, MetricUnit.Milliseconds, value, dimensions),
  };
}

export interface TallyMetrics extends MetricsRecorder {
  /** `name{dim=value,...}` -> sum of the values recorded. */
  totals(): Map<string, number>;
}

export function tallyMetrics(): TallyMetrics {
  const totals = new Map<string, number>();
  // Keys per frozen dimensions object (callers that record per request pass the same one).
  const keysByDimensions = new WeakMap<object, Map<string, string>>();
  const keyOf = (name: string, dimensions: Record<string, string>) => {
    const dims = Object.entries(dimensions)
      .map(([key, v]) => `${key}=${v}`)
      .join(',');
    return dims ? `${name}{${dims}}` : name;
  };
  const add = (name: string, value: number, dimensions: Record<string, string> = {}) => {
    let key: string | undefined;
    if (Object.isFrozen(dimensions)) {
      let keys = keysByDimensions.get(dimensions);
      if (!keys) keysByDimensions.set(dimensions, (keys = new Map()));
      key = keys.get(name);
      if (key === undefined) keys.set(name, (key = keyOf(name, dimensions)));
    } else key = keyOf(name, dimensions);
    totals.set(key, (totals.get(key) ?? 0) + value);
  };
  return {
    count: (name, value = 1, dimensions) => add(name, value, dimensions),
    milliseconds: (name, value, dimensions) => add(name, value, dimensions),
    totals: () => new Map(totals),
  };
}
