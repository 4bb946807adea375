// A fresh process's cold start on a saved search snapshot (spawned by search-latency): load the
// snapshot, answer one search (its match count), print the times as JSON.
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { fileSnapshotStore } from '../../lambdas/adapters/search/file-snapshot';
import { createSearchService } from '../../lambdas/domain/search/service';

const started = performance.now();
const search = createSearchService({
  index: createMemoryIndex(),
  feed: null,
  records: { get: async () => null },
  snapshots: fileSnapshotStore(process.argv[2]),
  now: Date.now,
});
await search.refresh();
const loadedMs = performance.now() - started;
// limit 0: the count of matches without hydrating hits (this process has no records).
const first = await search.search({
  query: process.argv[3] ?? 'classic hoodie',
  mode: 'understand',
  offset: 0,
  limit: 0,
});
const firstMs = performance.now() - started;
console.log(JSON.stringify({ loadedMs, firstMs, total: first.total, rssMb: process.memoryUsage().rss / 1024 / 1024 }));
