// Per-family request metrics for the operators' dashboard (CloudWatch EMF on Lambda, the
// in-memory tally locally): ApiRequests and ApiLatency per family, ApiErrors per family and class.
import type { MetricsRecorder } from '../ports/metrics';

/** Dimensions per family (and error class), made once: the same objects every request. */
const dimensions = new Map<
  string,
  { family: Record<string, string>; '4xx': Record<string, string>; '5xx': Record<string, string> }
>();

function dimensionsOf(family: string) {
  let known = dimensions.get(family);
  if (!known) {
    known = {
      family: Object.freeze({ family }) as Record<string, string>,
      '4xx': Object.freeze({ family, class: '4xx' }) as Record<string, string>,
      '5xx': Object.freeze({ family, class: '5xx' }) as Record<string, string>,
    };
    dimensions.set(family, known);
  }
  return known;
}

export function recordRequest(metrics: MetricsRecorder | undefined, family: string, status: number, ms: number): void {
  // Public routes (health, openapi) would only dilute the families' figures.
  if (!metrics || family === 'public') return;
  const dims = dimensionsOf(family);
  metrics.count('ApiRequests', 1, dims.family);
  metrics.milliseconds('ApiLatency', ms, dims.family);
  if (status >= 400) metrics.count('ApiErrors', 1, status >= 500 ? dims['5xx'] : dims['4xx']);
}
