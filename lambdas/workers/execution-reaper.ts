// Scheduled (CDK: every 5 minutes; locally the runtime may call it): fails executions whose
// deadline passed without a terminal state. Status reads reap their own execution too.
import { getJobsDeps } from '../composition/jobs';
import { extractHandlers } from './extract-handlers';

export const handler = extractHandlers(getJobsDeps).reaper;
