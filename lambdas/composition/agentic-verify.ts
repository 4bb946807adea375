// The agentic workflow's verify step: the agentic jobs with verification (verify-urls.ts) added.
import { agenticJobsWith } from './agentic';
import { capability } from './container';
import { verifyUrlsOf } from './verify-urls';

export const agenticVerifyJobsOf = capability((base) => agenticJobsWith(base, { verify: verifyUrlsOf(base) }));
