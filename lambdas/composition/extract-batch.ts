// The extract worker's steps: processBatch runs the engine over the batch's URLs, on the
// extraction slots this process shares between batches (Config.extractSlots).
import { createExtractSteps, type ExtractStepsDeps } from '../domain/extract-jobs/steps';
import { createLimiter } from '../domain/extract-jobs/concurrency';
import { productCatalogOf } from './catalog';
import { capability } from './container';
import { executionsOf } from './executions';
import { extractResultsOf } from './extract-jobs';
import { extractUrlOf } from './extraction';
import { faultsConfigured, withFaults } from './faults';

/** URL extractions at once shared by every batch of this process (Config.extractSlots). */
export const extractSlotsOf = capability(({ config }) =>
  config.extractSlots === undefined ? undefined : createLimiter(config.extractSlots),
);

export const extractBatchStepsOf = capability((base) => {
  const { config } = base;
  const deps: ExtractStepsDeps = {
    executions: executionsOf(base),
    results: extractResultsOf(base),
    extractUrl: extractUrlOf(base),
    catalog: productCatalogOf(base),
    extractSlots: extractSlotsOf(base),
  };
  // Tests and benchmarks only: crashing workers and duplicate deliveries around the same steps.
  if (!faultsConfigured(config.faults)) return createExtractSteps(deps);
  return withFaults(deps, config.faults, { resend: (message) => base.queue('extract-work').sendAll([message]) });
});
