// The service's own CloudWatch metrics as the code emits them and the stack's alarms and dashboard
// read them (lib/metric-names.ts): one namespace and `service` dimension, and the dimension
// values that are tables here: execution kinds with the workflow group each runs in, and URL
// outcomes with their class. The domain's types are these tables' keys.

export const METRICS_NAMESPACE = 'ProductDataService';
/** Powertools' `service` dimension (the EMF adapter's serviceName). */
export const METRICS_SERVICE = 'product-data-service';

export type ExecutionKind = 'products-batch' | 'extract-urls' | 'extract-vendor' | 'crawl' | 'agentic';
/** Lists group kinds by the family of operations that shows them. */
export type ExecutionGroup = 'extract' | 'crawl' | 'agentic';

export const GROUP_OF: Record<ExecutionKind, ExecutionGroup> = {
  'products-batch': 'extract',
  'extract-urls': 'extract',
  'extract-vendor': 'extract',
  crawl: 'crawl',
  agentic: 'agentic',
};

export type Outcome = 'success' | 'non_product_url' | 'malformed_url' | 'automated_access_not_permitted' | 'other';

/** failed = retriable (automated_access_not_permitted, other); invalid = must be corrected. */
export const OUTCOME_CLASS: Record<Outcome, 'success' | 'failed' | 'invalid'> = {
  success: 'success',
  non_product_url: 'invalid',
  malformed_url: 'invalid',
  automated_access_not_permitted: 'failed',
  other: 'failed',
};
