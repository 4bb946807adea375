// What the extraction API handlers need, from the jobs composition root: the jobs use-cases
// (start, status, list, cancel; no engine) and the synchronous path (with the engine, built on
// first use only, so status polls never construct a fetcher).
import { getExtractingJobsDeps, getJobsDeps } from './jobs';
import type { ExtractJobs } from '../domain/extract-jobs/jobs';
import type { ExtractNowRequest, ExtractNowResult } from '../domain/extract-jobs/sync';

export interface ExtractApi {
  jobs: ExtractJobs;
  extractNow(request: ExtractNowRequest): Promise<ExtractNowResult>;
}

export function getExtractApi(): ExtractApi {
  return {
    jobs: getJobsDeps().jobs,
    extractNow: (request) => getExtractingJobsDeps().extractNow(request),
  };
}
