// Scheduled workers: plain data read by CDK (an EventBridge rule per entry) and the local runtime
// (a timer per entry), like the queue and workflow tables.
export interface ScheduleSpec {
  /** Logical name: CDK id and log name. */
  name: string;
  /** Worker module under lambdas/workers/ (exports `handler`). */
  worker: string;
  everyMinutes: number;
  description: string;
  timeoutSeconds: number;
  /** Also stops state machine executions (needs states:StopExecution on every workflow). */
  stopsExecutions: boolean;
}

export const SCHEDULES: readonly ScheduleSpec[] = [
  {
    name: 'execution-reaper',
    worker: 'execution-reaper',
    everyMinutes: 5,
    description: 'Fails executions past their deadline and settles extractions waiting for a crawl that ended',
    timeoutSeconds: 120,
    stopsExecutions: true,
  },
];
