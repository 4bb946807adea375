// The extract worker's handler (one SQS message = one batch of URLs extracted): the only
// extraction handler that runs the engine (processBatch). It lives apart from extract-handlers.ts
// so the planning workers (prepare, lost batch, finalize, fail, the DLQ and the reaper) do not
// import it, and their assets hold no engine, enrichment or fetcher.
import { extractBatchStepsOf, renderHandOffOf } from '../composition/extract-batch';
import { taskTokenConsumer } from './define';
import { parseWork } from './extract-handlers';

/**
 * SQS consumer: one message = one batch; a crashed message is a batch item failure (redelivered).
 * Pages handed on to the render worker travel with the task token: the batch is reported once
 * they have their results (render-handlers.ts), not here.
 */
export const extractBatchWorker = taskTokenConsumer('extract-worker', parseWork, async (message, deps) => {
  const outcome = await extractBatchStepsOf(deps).processBatch(message);
  if (!outcome.handOff.length) return { batchId: message.batch.id, state: outcome.state };
  await renderHandOffOf(deps)(message, outcome.handOff);
  return null;
});
