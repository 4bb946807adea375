// Environment variable names shared by the CDK stack (which sets them on every Lambda) and the
// local runtime (which sets them before loading handlers). Only lambdas/config.ts reads them.
export const ENV = {
  tableName: 'PDS_TABLE_NAME',
  extractQueueUrl: 'PDS_EXTRACT_QUEUE_URL',
  crawlQueueUrl: 'PDS_CRAWL_QUEUE_URL',
  extractStateMachineArn: 'PDS_EXTRACT_STATE_MACHINE_ARN',
  crawlStateMachineArn: 'PDS_CRAWL_STATE_MACHINE_ARN',
  agenticStateMachineArn: 'PDS_AGENTIC_STATE_MACHINE_ARN',
  /** Set only locally: endpoints of the embedded engines. */
  dynamodbEndpoint: 'PDS_DYNAMODB_ENDPOINT',
  sqsEndpoint: 'PDS_SQS_ENDPOINT',
  stepFunctionsEndpoint: 'PDS_SFN_ENDPOINT',
  rateLimit: 'PDS_RATE_LIMIT',
  resolve: 'PDS_RESOLVE',
  crawlDelayMs: 'PDS_CRAWL_DELAY_MS',
  affiliateMerchants: 'PDS_AFFILIATE_MERCHANTS',
  egressProxies: 'PDS_EGRESS_PROXIES',
  logLevel: 'PDS_LOG_LEVEL',
  /** URL extractions at once per process, shared by all extract-worker batches it runs. */
  extractSlots: 'PDS_EXTRACT_SLOTS',
  /** Fault injection for tests and benchmarks only. */
  faultRate: 'PDS_FAULT_RATE',
  duplicateRate: 'PDS_DUPLICATE_RATE',
} as const;
