// Every Lambda of the topology tables and its entry module (the cold-start bench, the capability
// table's generator and its test walk the same list).
import { QUEUES } from '../lambdas/topology/queues';
import { ROUTES } from '../lambdas/topology/routes';
import { SCHEDULES } from '../lambdas/topology/schedules';
import { WORKFLOWS } from '../lambdas/topology/workflows';
import type { SourceLayout } from './source-layout';

export interface LambdaEntry {
  name: string;
  kind: 'route' | 'worker';
  entry: string;
  /** A route function's operations (the routes its handler serves); none for a worker. */
  operations?: string[];
}

export function lambdaEntries(layout: SourceLayout): LambdaEntry[] {
  const list: LambdaEntry[] = [{ name: 'fallback', kind: 'route', entry: layout.fallbackHandler, operations: [] }];
  const byHandler = new Map<string, LambdaEntry>();
  for (const route of ROUTES) {
    const known = byHandler.get(route.handler);
    if (known) {
      known.operations!.push(route.operationId);
      continue;
    }
    const entry: LambdaEntry = {
      name: route.operationId,
      kind: 'route',
      entry: layout.httpHandler(route.handler),
      operations: [route.operationId],
    };
    byHandler.set(route.handler, entry);
    list.push(entry);
  }
  const workers = new Set<string>([
    ...QUEUES.flatMap((q) => [q.worker, ...(q.dlqWorker ? [q.dlqWorker] : [])]),
    ...WORKFLOWS.flatMap((w) => Object.values(w.tasks)),
    ...SCHEDULES.map((s) => s.worker),
    'search-indexer',
  ]);
  for (const worker of workers) list.push({ name: worker, kind: 'worker', entry: layout.worker(worker) });
  return list;
}
