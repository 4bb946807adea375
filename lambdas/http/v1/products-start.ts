// POST /v1/products: start an extraction of up to 1000 URLs; malformed entries become results.
import { defineRoute } from '../pipeline';
import { extractJobsOf } from '../../composition/extract-jobs';
import { webhooksOf } from '../../composition/webhooks';
import { extractOptionsFrom } from '../../domain/extraction/options';

export const handler = defineRoute('v1ProductsStart', async ({ body }, { org, deps }) => {
  await webhooksOf(deps).check(body.webhook);
  const started = await extractJobsOf(deps).start({
    org,
    kind: 'products-batch',
    urls: body.urls,
    options: extractOptionsFrom(body),
    onInvalid: 'record',
    webhook: body.webhook,
  });
  return { body: { success: true as const, execution_id: started.execution_id } };
});
