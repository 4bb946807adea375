// POST /api/product: one product by URL, synchronously (a fresh stored record when allowed).
import { defineRoute } from '../pipeline';
import { extractNowOf } from '../../composition/extraction';
import { grantUrlVendors } from '../../composition/changes';
import { invalid } from '../../domain/errors';
import { extractOptionsFrom } from '../../domain/extraction/options';
import { finalUrlField } from '../../domain/extraction/results';
import { normalizeUrl } from '../../domain/extraction/url';
import { legacyProduct } from '../shapes/legacy-product';

export const handler = defineRoute('legacyProduct', async ({ body }, { deps, org }) => {
  const normalized = normalizeUrl(body.url);
  if (!normalized.ok) throw invalid(`url is not a valid product URL: ${normalized.problem}`, { parameter: 'url' });
  const [extracted] = await Promise.all([
    extractNowOf(deps)({
      urls: [body.url],
      options: extractOptionsFrom(body),
      forceExtraction: body.force_extraction,
    }),
    grantUrlVendors(deps, org, [body.url]),
  ]);
  const result = extracted.results[0];
  const found = result.success && result.product !== null;
  return {
    body: {
      product: found ? legacyProduct(result.product!) : null,
      meta: {
        found,
        url: normalized.url,
        outcome: result.outcome,
        retry: result.retry,
        message: result.message,
        ...finalUrlField(result.url, result.final_url),
        from_store: extracted.fromStore[0] === true,
        credits_used: extracted.credits_used,
      },
    },
  };
});
