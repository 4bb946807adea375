// The service's own CloudWatch metrics as the alarms and the dashboard read them: Powertools
// Metrics (lambdas/adapters/metrics.ts) publishes them in EMF under one namespace, every data
// point with the `service` dimension plus its own; names, kinds and outcomes are the topology's
// (lambdas/topology/metrics.ts; test/infra/operability-metrics.test.ts runs the adapter and checks
// that these names and dimensions are what it prints).
import { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ExecutionKind,
  GROUP_OF,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  OUTCOME_CLASS,
  type Outcome,
} from '../lambdas/topology/metrics';

export const EXECUTION_KINDS = Object.keys(GROUP_OF) as ExecutionKind[];
export const URL_OUTCOMES = Object.keys(OUTCOME_CLASS) as Outcome[];

/** Execution kinds whose executions run on a workflow (`extract` -> products-batch, extract-urls, extract-vendor). */
export const kindsOfWorkflow = (workflow: string): ExecutionKind[] =>
  EXECUTION_KINDS.filter((kind) => GROUP_OF[kind] === workflow);

export function serviceMetric(
  metricName: string,
  dimensions: Record<string, string>,
  options: MetricOptions = {},
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    period: Duration.minutes(5),
    statistic: 'Sum',
    ...options,
  });
}
