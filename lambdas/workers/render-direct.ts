// The render function's direct entry (docs/rendering.md): a synchronous operation of a function
// that ships no browser (POST /api/product and /api/products, agentic verification) invokes it
// with one URL and waits for the page. Bundled into the render worker's asset beside its queue
// entry (lib/render-worker.ts), deployed as a function of its own so that these calls never take
// the queue's instances. The document is fetched here by the fetcher, robots.txt first, and
// every request of the page passes the fetcher's rules, as in the render worker.
import { directRenderingOf } from '../composition/rendering';
import { defineWorker } from './define';

export const handler = defineWorker((event: unknown, deps) => directRenderingOf(deps)(event));
