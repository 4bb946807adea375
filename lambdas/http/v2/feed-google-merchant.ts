// GET /v2/feeds/google-merchant: a vendor's products as Google Merchant Center items, by cursor;
// JSON (items, refused items with reasons) or the RSS 2.0 XML Merchant Center fetches.
import { defineRoute } from '../pipeline';
import { merchantFeedOf } from '../../composition/feeds';
import { rssDocument } from '../../domain/feeds/rss';

const PATH = '/v2/feeds/google-merchant';

export const handler = defineRoute('v2FeedGoogleMerchant', async ({ query }, { deps }) => {
  const page = await merchantFeedOf(deps).page({
    vendor: query.vendor,
    country: query.country_code,
    cursor: query.cursor ?? null,
    pageSize: query.page_size,
  });
  const pagination = { page_size: query.page_size, next_cursor: page.nextCursor, has_next: page.nextCursor !== null };
  const meta = {
    vendor: page.vendor,
    country_code: query.country_code,
    products: page.products,
    refused_count: page.refused.length,
  };
  if (query.format === 'json') return { body: { data: page.items, refused: page.refused, pagination, meta } };

  const headers: Record<string, string> = {
    'content-type': 'application/xml; charset=utf-8',
    'x-refused-items': String(page.refused.length),
  };
  if (page.nextCursor) {
    const next = new URLSearchParams({
      vendor: page.vendor,
      country_code: query.country_code,
      format: 'xml',
      page_size: String(query.page_size),
      cursor: page.nextCursor,
    });
    headers.link = `<${PATH}?${next}>; rel="next"`;
  }
  const xml = rssDocument(
    {
      title: `${page.vendor} products`,
      link: `https://${page.vendor}/`,
      description: `Products of ${page.vendor} in Google Merchant Center's product data format`,
    },
    page.items,
  );
  // `serialized` is the response text as sent: here the XML document, not JSON.
  return { body: meta, serialized: xml, headers };
});
