// `npm run bench -- scale-model`: capacity and monthly cost of one deployment at 10 million
// products, 1 million extracted URLs a day, 1,000 searches a second and 100 crawls at once, on
// paper (docs/scale.md explains every figure). Each service's load against its limit, the first
// limit reached, and what the month costs. Every assumption is a named constant below; change one
// and run again. Prices: us-east-1, on-demand, as listed on the AWS pricing pages (2025).
// The per-fetch cost of the host gate is the figure `npm run bench -- host-gate` measures.

/** The workload. */
const WORKLOAD = {
  products: 10_000_000,
  extractedUrlsPerDay: 1_000_000,
  searchesPerSecond: 1_000,
  crawlsAtOnce: 100,
  /** Hours a day the 100 crawls run (a crawl of a 10,000-product shop reads ~420 listing pages, 7 min at 1 page/s). */
  crawlHoursPerDay: 6,
  /** Busiest hour of extraction against the day's average. */
  extractionPeak: 3,
};

/** How the service behaves, from the code (file named) or measured (bench named). */
const SERVICE = {
  /** Stored product record (JSON, all countries' fields), KB. */
  productItemKb: 2.5,
  /** Product items are copied into gsi1 (per vendor) and gsi2 (change feed): both project all attributes. */
  productCopies: 3,
  /** Listings, first-seen markers, executions, usage, vendors: storage besides products, GB. */
  otherStorageGb: 10,
  /** Write units per extracted URL: product put with its two index copies (9), first-seen (1), the URL's result (2), the host gate (0.54 per fetch x ~1.2 fetches, bench host-gate), usage and vendor (0.4), batch claims and counters (0.2). */
  writeUnitsPerUrl: 9 + 1 + 2 + 0.65 + 0.4 + 0.2,
  readUnitsPerUrl: 2,
  /** Politeness: default spacing between starts on a host (PDS_CRAWL_DELAY_MS) and requests in flight per host. */
  hostSpacingSeconds: 1,
  /** Extraction's Map runs up to 10 batches of a job at once (statemachines/extract.asl.json); a vendor job's batches all wait on one host. */
  extractBatchesPerHost: 10,
  extractBatchUrls: 50,
  /** Work of one URL when it does not wait: fetch and parse, s. */
  extractSecondsPerUrl: 1.5,
  extractUrlsPerJob: 500,
  /** Crawl: one page per host spacing; 4 pages a batch (domain/crawl/model.ts); the Map runs 6 batches at once (crawl.asl.json), all on the crawl's host. */
  crawlPagesPerBatch: 4,
  crawlBatchesAtOnce: 6,
  /** A listing page lists ~24 products; a re-crawl finds a quarter of them new or changed (listing item + feed copy each). */
  crawlWriteUnitsPerPage: 24 * 0.25 * 2 + 0.54 + 2,
  crawlReadUnitsPerPage: 2,
  /** Step Functions transitions: an extract job's fixed states and per batch (Map iteration, task); a crawl batch's. */
  extractTransitionsPerJob: 5,
  extractTransitionsPerBatch: 2,
  crawlTransitionsPerBatch: 3,
  /** A search through API Gateway and Lambda (auth cached, rate-limit write, OpenSearch query), s. */
  searchSeconds: 0.045,
  searchMemoryGb: 1,
  /** Rate limiting: one conditional write per request for keys under 40 requests/s (faster keys lease tokens). */
  searchWriteUnits: 1,
  workerMemoryGb: 1,
  /** Concurrency of everything else (render worker 10, schedules, DLQ workers, other routes). */
  otherConcurrency: 40,
  /** One access-log line and one request-log line per API call, bytes. */
  logBytesPerRequest: 400,
  /** OpenSearch: source and index per product (KB), one replica, CPU per query (ms, all shards), target CPU use. */
  searchDocKb: 2.2,
  searchReplicas: 1,
  queryCpuMs: 10,
  searchCpuTarget: 0.6,
};

/** us-east-1 prices (USD). */
const PRICE = {
  dynamoWriteMillion: 0.625,
  dynamoReadMillion: 0.125,
  dynamoGbMonth: 0.25,
  dynamoPitrGbMonth: 0.2,
  /** arm64 (lib/node-function.ts). */
  lambdaGbSecond: 0.0000133334,
  lambdaRequestMillion: 0.2,
  /** HTTP API: first 300 million a month, then 0.90. */
  httpApiMillion: 1.0,
  httpApiMillionOver300: 0.9,
  sqsRequestMillion: 0.4,
  stepFunctionsThousandTransitions: 0.025,
  logsIngestGb: 0.5,
  /** OpenSearch Service: r6g.2xlarge.search data nodes (8 vCPU, 64 GB), m6g.large.search masters, gp3. */
  openSearchDataNodeHour: 0.669,
  openSearchDataNodeVcpus: 8,
  openSearchMasterHour: 0.128,
  openSearchGbMonth: 0.122,
};

/** Account and service limits (us-east-1 defaults). */
const LIMIT = {
  lambdaConcurrency: 1_000,
  dynamoPartitionWrites: 1_000,
  dynamoPartitionReads: 3_000,
  dynamoPartitionGb: 10,
  dynamoTableOnDemandUnits: 40_000,
  httpApiRequestsPerSecond: 10_000,
  stepFunctionsTransitionsPerSecond: 5_000,
  /**
   * The default search index lives in each search Lambda's memory, ~1 GB per 100,000 products
   * (lib/sizing.ts): the README puts its ceiling at 300-500k products (memory, cold start).
   */
  snapshotIndexProducts: 500_000,
  openSearchShardGb: 50,
};

const MONTH_S = 30 * 24 * 3600;
const DAY_S = 24 * 3600;

export function model(workload = WORKLOAD, s = SERVICE) {
  const urlsPerSecondAvg = workload.extractedUrlsPerDay / DAY_S;
  const urlsPerSecondPeak = urlsPerSecondAvg * workload.extractionPeak;
  const urlsPerMonth = workload.extractedUrlsPerDay * 30;
  const crawlPagesPerSecond = workload.crawlsAtOnce / s.hostSpacingSeconds;
  const crawlSecondsPerMonth = workload.crawlHoursPerDay * 3600 * 30;
  const crawlPagesPerMonth = crawlPagesPerSecond * crawlSecondsPerMonth;
  const searchesPerMonth = workload.searchesPerSecond * MONTH_S;

  // DynamoDB
  const storageGb = (workload.products * s.productItemKb * s.productCopies) / 1e6 + s.otherStorageGb;
  const searchConcurrency = Math.ceil(workload.searchesPerSecond * s.searchSeconds * 1.5);
  const usageWritesPerSecond = searchConcurrency; // write-behind: about one counter write per instance a second
  const peakWrites =
    urlsPerSecondPeak * s.writeUnitsPerUrl +
    crawlPagesPerSecond * s.crawlWriteUnitsPerPage +
    workload.searchesPerSecond * s.searchWriteUnits +
    usageWritesPerSecond;
  const peakReads = urlsPerSecondPeak * s.readUnitsPerUrl + crawlPagesPerSecond * s.crawlReadUnitsPerPage;
  const partitions = Math.max(
    Math.ceil(storageGb / LIMIT.dynamoPartitionGb),
    Math.ceil(peakWrites / LIMIT.dynamoPartitionWrites + peakReads / LIMIT.dynamoPartitionReads),
  );
  const writeUnitsMonth =
    urlsPerMonth * s.writeUnitsPerUrl +
    crawlPagesPerMonth * s.crawlWriteUnitsPerPage +
    searchesPerMonth * s.searchWriteUnits +
    usageWritesPerSecond * MONTH_S;
  const readUnitsMonth = urlsPerMonth * s.readUnitsPerUrl + crawlPagesPerMonth * s.crawlReadUnitsPerPage;
  const dynamoCost =
    (writeUnitsMonth / 1e6) * PRICE.dynamoWriteMillion +
    (readUnitsMonth / 1e6) * PRICE.dynamoReadMillion +
    storageGb * (PRICE.dynamoGbMonth + PRICE.dynamoPitrGbMonth);

  // Lambda: concurrency = arrivals x time held (Little's law). A worker waiting for its host's
  // turn holds its Lambda: a vendor job's 10 batches share one host, so each URL holds a Lambda
  // for 10 spacings; a crawl's 6 batches hold 6 Lambdas for one page a second.
  const extractSecondsPerUrl = Math.max(s.extractSecondsPerUrl, s.extractBatchesPerHost * s.hostSpacingSeconds);
  const extractConcurrency = Math.ceil(urlsPerSecondPeak * extractSecondsPerUrl);
  const crawlConcurrency = workload.crawlsAtOnce * s.crawlBatchesAtOnce;
  const concurrency = {
    search: searchConcurrency,
    'extract-worker': extractConcurrency,
    'crawl-worker': crawlConcurrency,
    other: s.otherConcurrency,
  };
  const totalConcurrency = Object.values(concurrency).reduce((a, b) => a + b, 0);
  const gbSeconds = {
    search: searchesPerMonth * s.searchSeconds * s.searchMemoryGb,
    'extract-worker': urlsPerMonth * extractSecondsPerUrl * s.workerMemoryGb,
    'crawl-worker': crawlConcurrency * crawlSecondsPerMonth * s.workerMemoryGb,
  };
  const extractBatches = urlsPerMonth / s.extractBatchUrls;
  const crawlBatches = crawlPagesPerMonth / s.crawlPagesPerBatch;
  const lambdaCost =
    Object.values(gbSeconds).reduce((a, b) => a + b, 0) * PRICE.lambdaGbSecond +
    ((searchesPerMonth + extractBatches + crawlBatches) / 1e6) * PRICE.lambdaRequestMillion;

  // API Gateway (HTTP API) and logs
  const apiMillions = searchesPerMonth / 1e6;
  const apiCost =
    Math.min(apiMillions, 300) * PRICE.httpApiMillion + Math.max(0, apiMillions - 300) * PRICE.httpApiMillionOver300;
  const logsCost = ((searchesPerMonth * s.logBytesPerRequest) / 1e9) * PRICE.logsIngestGb;

  // SQS: send, receive and delete per message.
  const sqsMessages = extractBatches + crawlBatches;
  const sqsCost = Math.max(0, (sqsMessages * 3) / 1e6 - 1) * PRICE.sqsRequestMillion;

  // Step Functions (standard)
  const extractJobs = urlsPerMonth / s.extractUrlsPerJob;
  const transitions =
    extractJobs * s.extractTransitionsPerJob +
    extractBatches * s.extractTransitionsPerBatch +
    crawlBatches * s.crawlTransitionsPerBatch;
  const transitionsPerSecondPeak =
    (urlsPerSecondPeak / s.extractBatchUrls) * s.extractTransitionsPerBatch +
    (crawlPagesPerSecond / s.crawlPagesPerBatch) * s.crawlTransitionsPerBatch;
  const stepFunctionsCost = (transitions / 1000) * PRICE.stepFunctionsThousandTransitions;

  // OpenSearch Service
  const primaryGb = (workload.products * s.searchDocKb) / 1e6;
  const searchStorageGb = primaryGb * (1 + s.searchReplicas) * 1.25; // 20 % free space, 5 % overhead
  const shards = Math.max(3, Math.ceil(primaryGb / 20));
  const vcpus = (workload.searchesPerSecond * s.queryCpuMs) / 1000 / s.searchCpuTarget;
  const dataNodes = Math.max(3, Math.ceil(vcpus / PRICE.openSearchDataNodeVcpus));
  const openSearchCost =
    (dataNodes * PRICE.openSearchDataNodeHour + 3 * PRICE.openSearchMasterHour) * 730 +
    searchStorageGb * PRICE.openSearchGbMonth;

  const costs = {
    DynamoDB: dynamoCost,
    Lambda: lambdaCost,
    'API Gateway': apiCost,
    'CloudWatch Logs': logsCost,
    SQS: sqsCost,
    'Step Functions': stepFunctionsCost,
    OpenSearch: openSearchCost,
  };
  const limits = [
    { what: 'in-memory search index (default engine)', load: workload.products, limit: LIMIT.snapshotIndexProducts },
    { what: 'Lambda concurrency (account)', load: totalConcurrency, limit: LIMIT.lambdaConcurrency },
    { what: 'DynamoDB on-demand units (table)', load: peakWrites, limit: LIMIT.dynamoTableOnDemandUnits },
    { what: 'HTTP API requests/s (account)', load: workload.searchesPerSecond, limit: LIMIT.httpApiRequestsPerSecond },
    {
      what: 'Step Functions transitions/s',
      load: transitionsPerSecondPeak,
      limit: LIMIT.stepFunctionsTransitionsPerSecond,
    },
    { what: 'OpenSearch shard size (GB)', load: primaryGb / shards, limit: LIMIT.openSearchShardGb },
  ].sort((a, b) => b.load / b.limit - a.load / a.limit);

  return {
    dynamo: { storageGb, peakWrites, peakReads, partitions, writeUnitsMonth, readUnitsMonth },
    concurrency,
    totalConcurrency,
    gbSeconds,
    sqsMessages,
    transitions,
    transitionsPerSecondPeak,
    openSearch: { primaryGb, searchStorageGb, shards, dataNodes, vcpus },
    costs,
    total: Object.values(costs).reduce((a, b) => a + b, 0),
    limits,
  };
}

export default async function run(): Promise<void> {
  const m = model();
  const n = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });
  const usd = (x: number) => `$${n(x)}`;
  console.log(
    `${n(WORKLOAD.products)} products, ${n(WORKLOAD.extractedUrlsPerDay)} extracted URLs/day, ${n(WORKLOAD.searchesPerSecond)} searches/s, ${WORKLOAD.crawlsAtOnce} crawls at once (us-east-1)`,
  );
  console.log('DynamoDB (on demand)');
  console.log(
    `  storage ${n(m.dynamo.storageGb)} GB; peak ${n(m.dynamo.peakWrites)} WRU/s, ${n(m.dynamo.peakReads)} RRU/s`,
  );
  console.log(`  partitions: at least ${m.dynamo.partitions} (10 GB, 1,000 WCU, 3,000 RCU each)`);
  console.log(
    `  per month ${n(m.dynamo.writeUnitsMonth / 1e6)} M write units, ${n(m.dynamo.readUnitsMonth / 1e6)} M read units`,
  );
  console.log('Lambda concurrency at peak');
  for (const [name, value] of Object.entries(m.concurrency)) console.log(`  ${name.padEnd(16)} ${n(value)}`);
  console.log(`  ${'total'.padEnd(16)} ${n(m.totalConcurrency)} of ${n(LIMIT.lambdaConcurrency)}`);
  console.log(`SQS: ${n(m.sqsMessages / 1e6, 1)} M messages/month`);
  console.log(
    `Step Functions: ${n(m.transitions / 1e6, 1)} M transitions/month, ${n(m.transitionsPerSecondPeak)} /s at peak`,
  );
  const os = m.openSearch;
  console.log(
    `OpenSearch: ${n(os.primaryGb)} GB primary, ${n(os.searchStorageGb)} GB stored, ${os.shards} primary shards, ${os.dataNodes} r6g.2xlarge data nodes (${n(os.vcpus, 1)} vCPU needed) + 3 masters`,
  );
  console.log('Monthly cost');
  for (const [name, value] of Object.entries(m.costs)) console.log(`  ${name.padEnd(16)} ${usd(value).padStart(8)}`);
  console.log(`  ${'total'.padEnd(16)} ${usd(m.total).padStart(8)}`);
  // The change for the first limit the workers reach: a worker whose host's turn is far off hands
  // the batch back to its queue until then instead of holding its Lambda (one Lambda per host).
  const changed = model(WORKLOAD, { ...SERVICE, extractBatchesPerHost: 1, crawlBatchesAtOnce: 1 });
  console.log(
    `With waits handed back to the queues: Lambda concurrency ${n(changed.totalConcurrency)}, Lambda ${usd(changed.costs.Lambda)}, total ${usd(changed.total)} a month`,
  );
  console.log('Limits, nearest first (load / limit)');
  for (const limit of m.limits)
    console.log(
      `  ${limit.what.padEnd(42)} ${n(limit.load)} / ${n(limit.limit)} (${n((limit.load / limit.limit) * 100)} %)`,
    );
}
