// `pds feed <vendor>`: every page of GET /v2/feeds/google-merchant by cursor, written as one
// RSS 2.0 document (the file Merchant Center fetches or a merchant uploads), or as JSON; the
// refused items and their reasons go to stderr (in the JSON with --json).
import { writeFileSync } from 'node:fs';
import { type PdsClient, unwrap } from '../client';
import { rssDocument } from '../lambdas/domain/feeds/rss';
import type { MerchantItem } from '../lambdas/domain/feeds/merchant';

/** Pages at most: 1,000 pages of 500 records is a catalog of half a million products. */
const MAX_PAGES = 1_000;

interface FeedFlags {
  [option: string]: unknown;
  country?: string;
  pageSize?: number;
  out?: string;
}

interface FeedIo {
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

export async function feedCommand(client: PdsClient, io: FeedIo, vendor: string, flags: FeedFlags): Promise<number> {
  const items: MerchantItem[] = [];
  const refused: Array<{ id: string; product_url: string; reasons: Array<{ code: string; message: string }> }> = [];
  let cursor: string | undefined;
  let key = vendor;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = unwrap(
      await client.api.GET('/v2/feeds/google-merchant', {
        params: {
          query: {
            vendor,
            // The service validates the code (400 names it); the client's type lists the codes.
            ...(flags.country ? { country_code: flags.country as 'us' } : {}),
            page_size: flags.pageSize ?? 500,
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
      'GET /v2/feeds/google-merchant',
    );
    items.push(...(page.data as MerchantItem[]));
    refused.push(...page.refused);
    key = page.meta.vendor;
    if (!page.pagination.next_cursor) break;
    cursor = page.pagination.next_cursor;
  }
  const text = io.json
    ? JSON.stringify({ vendor: key, items, refused })
    : rssDocument(
        {
          title: `${key} products`,
          link: `https://${key}/`,
          description: `Products of ${key} in Google Merchant Center's product data format`,
        },
        items,
      );
  if (flags.out) writeFileSync(flags.out, text);
  else io.out(text);
  if (!io.json) {
    io.err(`${items.length} items, ${refused.length} refused`);
    for (const entry of refused)
      io.err(`refused ${entry.id} ${entry.product_url}: ${entry.reasons.map((r) => r.message).join('; ')}`);
  }
  return 0;
}
