// Consumer of extract-work (QUEUES): one message = one batch of URLs of an extraction.
import { getExtractingJobsDeps } from '../composition/jobs';
import { extractHandlers } from './extract-handlers';

export const handler = extractHandlers(getExtractingJobsDeps).worker;
