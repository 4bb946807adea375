// The render worker's handlers: one SQS message = one part of an extract batch whose pages need a
// browser (handed on by the extract worker, with the batch's task token). The part is processed by
// the same batch steps as an extract batch (claim, commit: one result per URL), its pages rendered;
// the part's dead letters become other/retry by the same abandonBatch as a lost batch. Whoever
// finds the batch's last URL done reports the batch's task, so the workflow waits for every part.
import type { SQSRecord } from 'aws-lambda';
import type { Container } from '../composition/container';
import type { RenderMessage } from '../composition/extract-batch';
import type { ExtractSteps } from '../domain/extract-jobs/steps';
import { taskTokenConsumer } from './define';
import { parseWork } from './extract-handlers';

const isBatch = (value: unknown): boolean => {
  const batch = value as { id?: unknown; indices?: unknown } | undefined;
  return (
    !!batch &&
    typeof batch.id === 'string' &&
    Array.isArray(batch.indices) &&
    batch.indices.every((index) => Number.isInteger(index))
  );
};

/** A render message, or null for a body that can never be processed (its batch's task then times out into "Record lost batch"). */
export function parseRender(record: SQSRecord): RenderMessage | null {
  const message = parseWork(record) as (RenderMessage & Record<string, unknown>) | null;
  return message && isBatch(message.parent) ? message : null;
}

/** The batch's task output once none of its URLs is pending; null while another part is still at work. */
async function reportIfSettled(steps: Pick<ExtractSteps, 'settled'>, message: RenderMessage, state: string) {
  const settled = await steps.settled(message.executionId, message.parent);
  return settled ? { batchId: message.parent.id, state, part: message.batch.id } : null;
}

/** The render worker's and its DLQ worker's steps, injected (the render worker's hold the browser). */
export function renderHandlers(
  renderSteps: (deps: Container) => ExtractSteps,
  planningSteps: (deps: Container) => ExtractSteps,
) {
  return {
    render: taskTokenConsumer('render-worker', parseRender, async (message, deps) => {
      const steps = renderSteps(deps);
      const outcome = await steps.processBatch(message);
      // A finished or cancelled execution: nothing will settle it, so its task is reported now.
      if (outcome.state === 'skipped') return { batchId: message.parent.id, state: 'skipped', part: message.batch.id };
      return reportIfSettled(steps, message, 'rendered');
    }),

    /** Dead-letter consumer: the part's pending URLs become other/retry, then the batch is reported if it is settled. */
    deadLetters: taskTokenConsumer('render-dlq', parseRender, async (message, deps) => {
      const steps = planningSteps(deps);
      await steps.abandonBatch(message);
      return reportIfSettled(steps, message, 'abandoned');
    }),
  };
}
