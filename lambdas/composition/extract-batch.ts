// The extract worker's steps: processBatch runs the engine over the batch's URLs, on the
// extraction slots this process shares between batches (Config.extractSlots). Where the render
// queue is configured (AWS, and the local runtime, which runs the same queue), a page that needs a
// browser is handed on to the render worker instead of rendered here (docs/rendering.md).
import { createOfflineEnricher } from '../domain/enrichment';
import { createExtractSteps, type Batch, type ExtractStepsDeps } from '../domain/extract-jobs/steps';
import { createLimiter } from '../domain/extract-jobs/concurrency';
import { RENDER_QUEUE } from '../topology/queues';
import { productCatalogOf } from './catalog';
import { capability, type Container } from './container';
import { executionsOf } from './executions';
import { extractResultsOf } from './extract-jobs';
import { extractUrlOf } from './extraction';
import { faultsConfigured, withFaults } from './faults';
import { fetcherOf } from './fetcher';
import { handingOnExtractor, rendererOf, renderingExtractor } from './rendering';

/** URL extractions at once shared by every batch of this process (Config.extractSlots). */
export const extractSlotsOf = capability(({ config }) =>
  config.extractSlots === undefined ? undefined : createLimiter(config.extractSlots),
);

/** Whether pages that need a browser go to the render worker (its queue is configured) rather than this process's browser. */
const handsOnRendering = (base: Container) => Boolean(base.config.queueUrls[RENDER_QUEUE]);

export const extractBatchStepsOf = capability((base) => {
  const { config } = base;
  const deps: ExtractStepsDeps = {
    executions: executionsOf(base),
    results: extractResultsOf(base),
    extractUrl: handsOnRendering(base)
      ? handingOnExtractor({ fetcher: fetcherOf(base), enricher: createOfflineEnricher() })
      : extractUrlOf(base),
    catalog: productCatalogOf(base),
    extractSlots: extractSlotsOf(base),
  };
  // Tests and benchmarks only: crashing workers and duplicate deliveries around the same steps.
  if (!faultsConfigured(config.faults)) return createExtractSteps(deps);
  return withFaults(deps, config.faults, { resend: (message) => base.queue('extract-work').sendAll([message]) });
});

/** What the render queue carries: one part of a batch, the batch itself, and the batch's task token. */
export interface RenderMessage {
  executionId: string;
  batch: Batch;
  parent: Batch;
  TaskToken: string;
}

/** Sends a batch's handed-on parts to the render worker, each with the batch's task token. */
export const renderHandOffOf = capability(
  (base) =>
    (message: { executionId: string; batch: Batch; TaskToken: string }, parts: readonly Batch[]): Promise<void> =>
      base.queue(RENDER_QUEUE).sendAll(
        parts.map(
          (part): RenderMessage => ({
            executionId: message.executionId,
            batch: part,
            parent: message.batch,
            TaskToken: message.TaskToken,
          }),
        ),
      ),
);

/**
 * The render worker's steps: the same batch steps (claim and commit, one result per URL) over a
 * pass that renders every page. On Lambda Chromium runs as one process (see rendering.ts), so
 * its pages go one at a time.
 */
export const renderStepsOf = capability((base) =>
  createExtractSteps({
    executions: executionsOf(base),
    results: extractResultsOf(base),
    extractUrl: renderingExtractor({
      fetcher: fetcherOf(base),
      enricher: createOfflineEnricher(),
      renderer: rendererOf(base),
    }),
    catalog: productCatalogOf(base),
    urlConcurrency: base.config.lambda ? 1 : 4,
  }),
);
