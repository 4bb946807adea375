// POST /v2/agentic-search-mini: the best 10 for the understood query, paged by page/page_size in
// the v2 envelope; enrichment off nulls attributes, product_type and the taxonomy fields. The
// contract's meta is the empty object (the credits charged show in usage, not here).
import { defineRoute } from '../pipeline';
import { enricherOf } from '../../composition/enricher';
import { searchOf } from '../../composition/search';
import { miniSearch } from '../../domain/agentic/mini';
import { MINI_RESULTS } from '../../domain/agentic/search';
import { pagination } from '../../domain/executions/service';
import { miniV2 } from '../shapes/search';

export const handler = defineRoute('v2AgenticSearchMini', async ({ body }, { deps }) => {
  const offset = (body.page - 1) * body.page_size;
  // Pages cut the best 10 only: past them a page is empty.
  const limit = Math.max(0, Math.min(body.page_size, MINI_RESULTS - offset));
  const found = await miniSearch(
    { search: searchOf(deps), enricher: enricherOf(deps) },
    { query: body.query, enrichment: body.enable_enrichment, offset, limit },
  );
  return {
    body: {
      data: found.items.map((item) => miniV2(item, body.enable_enrichment)),
      pagination: pagination(body.page, body.page_size, Math.min(found.total, MINI_RESULTS)),
      meta: {},
    },
  };
});
