// POST /v1/products: start an extraction of up to 1000 URLs; malformed entries become results.
import { defineRoute } from '../pipeline';
import { extractOptionsFrom } from '../../domain/extraction/options';

export const handler = defineRoute('v1ProductsStart', async ({ body }, { org, deps }) => {
  await deps.webhooks.check(body.webhook);
  const started = await deps.extractJobs.start({
    org,
    kind: 'products-batch',
    urls: body.urls,
    options: extractOptionsFrom(body),
    onInvalid: 'record',
  });
  await deps.webhooks.subscribe(org, started.execution_id, body.webhook);
  return { body: { success: true as const, execution_id: started.execution_id } };
});
