// Per-family request metrics for the operators' dashboard (CloudWatch EMF on Lambda, the
// in-memory tally locally): ApiRequests and ApiLatency per family, ApiErrors per family and class.
import type { MetricsRecorder } from '../ports/metrics';

export function recordRequest(metrics: MetricsRecorder | undefined, family: string, status: number, ms: number): void {
  // Public routes (health, openapi) would only dilute the families' figures.
  if (!metrics || family === 'public') return;
  metrics.count('ApiRequests', 1, { family });
  metrics.milliseconds('ApiLatency', ms, { family });
  if (status >= 400) metrics.count('ApiErrors', 1, { family, class: status >= 500 ? '5xx' : '4xx' });
}
