// Consumer of render-work (QUEUES): one message = one part of an extract batch whose pages need a
// browser. The one function that ships Chromium (lib/render-worker.ts).
import { renderStepsOf } from '../composition/extract-batch';
import { extractPlanningOf } from '../composition/extract-jobs';
import { defineWorker } from './define';
import { renderHandlers } from './render-handlers';

export const handler = defineWorker(renderHandlers(renderStepsOf, extractPlanningOf).render);
