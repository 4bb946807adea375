// Scheduled (SCHEDULES in lambdas/topology/schedules.ts; locally the runtime's timer): fails
// executions whose deadline passed without a terminal state, ends a reaped crawl as a cancelled one
// ends, and settles the extractions still waiting for a crawl that has ended. Status reads change
// nothing: this schedule and a crawl's own end are where those writes happen.
import type { Container } from '../composition/container';
import { crawlOf } from '../composition/crawl';
import { defineWorker } from './define';

export const reap = (_event: unknown, deps: Container) => crawlOf(deps).jobs.reapOverdue({ limit: 200 });

export const handler = defineWorker(reap);
