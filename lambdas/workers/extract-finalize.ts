// Step of statemachines/extract.asl.json (WORKFLOWS extract); see extract-handlers.ts.
import { getJobsDeps } from '../composition/jobs';
import { extractHandlers } from './extract-handlers';

export const handler = extractHandlers(getJobsDeps).finalize;
