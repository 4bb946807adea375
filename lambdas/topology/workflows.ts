// Step Functions state machines: ASL under statemachines/, each Lambda Task mapped to a worker
// module under lambdas/workers/ (exports `handler`). Plain data read by CDK and the local runner.
//
// Substitution convention inside the ASL (CDK definitionSubstitutions; the local runner fills
// the same keys):
//   "${<FnKey>FnArn}"       for a Lambda Task, FnKey = key of `tasks`
//   "${<QueueKey>QueueUrl}" for an sqs:sendMessage.waitForTaskToken Task, QueueKey = key of
//                            `queues`, value = queue logical name in topology/queues.ts
export interface WorkflowSpec {
  /** Logical name: CDK id, key in Config.stateMachineArns, prefix of local ARNs. */
  name: string;
  /** File under statemachines/. */
  aslFile: string;
  /** FnKey -> worker module under lambdas/workers/. */
  tasks: Record<string, string>;
  /** QueueKey -> queue logical name. */
  queues: Record<string, string>;
  /** ENV name that carries this state machine's ARN to the API handlers. */
  envVar: string;
  /** Execution-level deadline; a stalled execution is failed after it. */
  timeoutSeconds: number;
  /**
   * Set when every step is safe to run again: a local runtime restarted after a crash starts an
   * unfinished execution again from the first step with input `{ [inputField]: execution id }`.
   * Absent: such an execution is failed at the restart (on AWS, Step Functions keeps running it).
   */
  resume?: { inputField: string };
}

export const WORKFLOWS: readonly WorkflowSpec[] = [
  {
    // Prepare -> Map of SQS batches (waitForTaskToken, consumed by extract-worker) -> Finalize.
    name: 'extract',
    aslFile: 'extract.asl.json',
    tasks: {
      Prepare: 'extract-prepare',
      LostBatch: 'extract-lost-batch',
      Finalize: 'extract-finalize',
      Fail: 'extract-fail',
    },
    queues: { Work: 'extract-work' },
    envVar: 'PDS_EXTRACT_STATE_MACHINE_ARN',
    // Prepare re-plans the original batches still unfinished; claims make a re-run batch safe.
    resume: { inputField: 'executionId' },
    // 10,000 vendor URLs at the default politeness (1 s per host, 2 at once) take about 1.5 h.
    timeoutSeconds: 4 * 60 * 60,
  },
  {
    // Understand query -> Retrieve candidates -> Map of SQS verifications (waitForTaskToken,
    // consumed by agentic-verify) -> Rank.
    name: 'agentic',
    aslFile: 'agentic-search.asl.json',
    tasks: {
      Understand: 'agentic-understand',
      Retrieve: 'agentic-retrieve',
      Rank: 'agentic-rank',
      Fail: 'agentic-fail',
    },
    queues: { Verify: 'agentic-verify' },
    envVar: 'PDS_AGENTIC_STATE_MACHINE_ARN',
    // Eight page reads, each bounded by its 180 s task timeout, run at once: minutes at worst.
    timeoutSeconds: 10 * 60,
  },
  {
    // Determining crawl method -> Discovering collections -> Analyzing collections -> Extracting
    // listings (Map of SQS batches of listing pages, consumed by crawl-worker, in planned waves) -> Finalize.
    name: 'crawl',
    aslFile: 'crawl.asl.json',
    tasks: {
      Determine: 'crawl-determine',
      Discover: 'crawl-discover',
      Analyze: 'crawl-analyze',
      Plan: 'crawl-plan',
      LostBatch: 'crawl-lost-batch',
      Finalize: 'crawl-finalize',
      Fail: 'crawl-fail',
    },
    queues: { Work: 'crawl-work' },
    envVar: 'PDS_CRAWL_STATE_MACHINE_ARN',
    // Every crawl step is safe to run twice (lambdas/domain/crawl/steps.ts).
    resume: { inputField: 'crawlId' },
    // 100,000 listings are 400 JSON pages (minutes); an HTML-only store at 1 s per page, longer.
    timeoutSeconds: 2 * 60 * 60,
  },
];
