// customer_profile.style.color: when the results hold a relevant product in that colour, one of
// them is in the top 3 (agentic retrieval ranks with the profile), whatever the colour's
// spelling in the profile and whether the product is an extracted record or a crawled listing.
import { describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { createSearchService } from '../../lambdas/domain/search/service';
import { retrieve, understand } from '../../lambdas/domain/agentic/search';
import type { CatalogChange } from '../../lambdas/ports/search-index';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import { product } from './agentic-fixtures';

type Colour = { iscc_family: string; merchant_label: string } | null;

function change(slug: string, title: string, description: string, colour: Colour, listing = false): CatalogChange {
  const url = `https://profile.test/products/${slug}`;
  const record: ProductRecord = product({
    id: slug,
    title,
    description,
    url,
    brand: 'Fernway',
    tags: [],
    product_type: null,
    taxonomy_product_category_path: null,
    attributes: listing ? null : colour ? { color: colour } : {},
    options: colour && !listing ? [{ name: 'Color', values: [colour.merchant_label], position: 1 }] : [],
  });
  return {
    source: listing ? 'listing' : 'extraction',
    url,
    vendor: 'profile.test',
    updatedAt: '2026-03-01T00:00:00.000Z',
    country: listing ? null : 'us',
    product: record,
  };
}

const blue = { iscc_family: 'blue', merchant_label: 'Cobalt' };
const green = { iscc_family: 'green', merchant_label: 'Moss' };
const black = { iscc_family: 'black', merchant_label: 'Black' };

/** Jackets whose text matches "rain jacket" strongly, and one black jacket that matches it less. */
function catalog(blackOne: CatalogChange) {
  return [
    change('rj-1', 'Rain Jacket', 'A rain jacket for rain. Rain jacket with taped seams.', blue),
    change('rj-2', 'Packable Rain Jacket', 'Rain jacket that packs into a pocket; rain ready.', green),
    change('rj-3', 'Rain Jacket, Hooded', 'Hooded rain jacket for rainy commutes.', blue),
    change('rj-4', 'Storm Rain Jacket', 'Storm-proof rain jacket.', green),
    change('rj-5', 'Lightweight Rain Jacket', 'A light rain jacket.', blue),
    change('rj-6', "Women's Rain Jacket", 'Rain jacket with a stand collar.', green),
    change('rj-7', 'Insulated Rain Jacket', 'A warm rain jacket for winter rain.', blue),
    change('rj-8', 'Rain Jacket with Pockets', 'Rain jacket, four pockets.', green),
    blackOne,
    change('mug', 'Black Mug', 'A black mug for rainy days.', black),
    // The rest of the shop: rain jackets are a small part of it.
    ...Array.from({ length: 40 }, (_, i) =>
      change(
        `other-${i}`,
        `${['Ceramic Mug', 'Desk Lamp', 'Wool Scarf', 'Canvas Tote'][i % 4]} ${i}`,
        'Made well.',
        blue,
      ),
    ),
  ];
}

async function top3(changes: CatalogChange[], profile: unknown) {
  const byUrl = new Map(changes.map((c) => [c.url, c]));
  const search = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: {
      get: async (ref) => ({ product: byUrl.get(ref.url)!.product!, updatedAt: '2026-03-01T00:00:00.000Z' }),
    },
    snapshots: null,
    now: Date.now,
  });
  await search.ingest(changes);
  const plan = await understand(search, 'rain jacket', profile);
  const candidates = await retrieve(search, plan, 8);
  return candidates.slice(0, 3).map((c) => c.url.split('/').pop());
}

describe('customer_profile.style.color', () => {
  const blackRecord = change('shell', 'Trail Shell', 'A waterproof shell jacket for rain and wind.', black);
  const blackListing = change('shell', 'Black Trail Shell, Rain Jacket', '', null, true);

  it('lifts a relevant product of that colour into the top 3', async () => {
    expect(await top3(catalog(blackRecord), {})).not.toContain('shell');
    expect(await top3(catalog(blackRecord), { style: { color: 'black' } })).toContain('shell');
  });

  it('whatever the spelling of the colour, and for a crawled listing that names it in its title', async () => {
    for (const color of ['Black', 'jet black', ['black', 'burgundy'], 'black and white'])
      expect(await top3(catalog(blackRecord), { style: { color } }), JSON.stringify(color)).toContain('shell');
    expect(await top3(catalog(blackListing), { style: { color: 'black' } })).toContain('shell');
  });

  it('lifts nothing that is not relevant: a black mug stays out of a rain jacket search', async () => {
    const changes = catalog(change('shell', 'Trail Shell Jacket', 'A waterproof shell for rain.', blue));
    const top = await top3(changes, { style: { color: 'black' } });
    expect(top).not.toContain('mug');
    expect(top).not.toContain('shell');
  });
});
