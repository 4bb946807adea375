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
}

export function lambdaEntries(layout: SourceLayout): LambdaEntry[] {
  const list: LambdaEntry[] = [{ name: 'fallback', kind: 'route', entry: layout.fallbackHandler }];
  const handlers = new Set<string>();
  for (const route of ROUTES) {
    if (handlers.has(route.handler)) continue;
    handlers.add(route.handler);
    list.push({ name: route.operationId, kind: 'route', entry: layout.httpHandler(route.handler) });
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
