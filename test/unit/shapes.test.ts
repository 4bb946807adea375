// The family shapers: the rich legacy record, v1 and v2 extraction status, execution lists and
// sync summaries, each checked against the operation's own response schema (CONTRACTS).
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../lambdas/contracts/operations';
import { legacyProduct, legacyResult, minorDigits, priceString } from '../../lambdas/http/shapes/legacy-product';
import {
  perUrlResult,
  v1ExecutionList,
  v1ExtractStatus,
  v2ExecutionList,
  v2ExtractStatus,
} from '../../lambdas/http/shapes/extract-status';
import type { ExtractionStatus } from '../../lambdas/domain/extract-jobs/model';
import type { ProductImage, ProductRecord, UrlResult } from '../../lambdas/domain/extraction/types';

/** Shapes take the organization's affiliate linker; these tests look at everything else. */
const unlinked = (record: ProductRecord) => record;

const image = (id: string, position: number, variantIds: string[] = []): ProductImage => ({
  id,
  url: `https://shop.example/cdn/${id}.jpg`,
  width: 800,
  height: 600,
  alt_text: `alt ${id}`,
  position,
  variant_ids: variantIds,
  attributes: null,
});

function record(overrides: Partial<ProductRecord> = {}): ProductRecord {
  const img = image('i1', 1, ['v1']);
  return {
    id: 'p1',
    title: 'Linen Shirt',
    description: 'Airy',
    description_html: '<p>Airy</p>',
    vendor: 'Shop',
    brand: 'Brand',
    url: 'https://shop.example/products/linen',
    handle: 'linen',
    is_available: true,
    attributes: { summary: 'A shirt', color: { iscc_family: 'blue', merchant_label: 'Sky' } },
    price: { currency: 'USD', current_value: 19.9, compare_at_value: 25 },
    images: [img, image('i2', 2)],
    options: [{ name: 'Size', values: ['S', 'M'], position: 1 }],
    variants: [
      {
        id: 'v1',
        sku: 'SKU-S',
        url: null,
        title: 'S',
        option1: 'S',
        option2: null,
        option3: null,
        is_available: true,
        price: { currency: 'USD', current_value: 19.9, compare_at_value: 25 },
        image: img,
        affiliate_link: null,
      },
      {
        id: 'v2',
        sku: 'SKU-M',
        url: null,
        title: 'M',
        option1: 'M',
        option2: null,
        option3: null,
        is_available: false,
        price: { currency: 'USD', current_value: 24, compare_at_value: null },
        image: null,
        affiliate_link: null,
      },
    ],
    store_canonical_url: 'https://shop.example',
    store_domain: 'shop.example',
    platform: 'shopify',
    platform_id: '123',
    product_type: 'Shirts',
    taxonomy_product_category_id: 'gid://shopify/TaxonomyCategory/aa-1-13-8',
    taxonomy_product_category_path: 'Apparel & Accessories > Clothing',
    tags: ['linen'],
    video_url: null,
    review_count: 3,
    average_rating: 4.5,
    rating_scale: 5,
    faqs: null,
    reviews: null,
    updated_at: '2025-01-01T00:00:00.000Z',
    similar_products: null,
    affiliate_link: null,
    ...overrides,
  };
}

const success = (url: string, product = record()): UrlResult => ({
  url,
  product,
  success: true,
  outcome: 'success',
  retry: false,
  message: '',
});
const failure = (url: string, outcome: UrlResult['outcome'], retry: boolean): UrlResult => ({
  url,
  product: null,
  success: false,
  outcome,
  retry,
  message: `failed: ${outcome}`,
});

function status(overrides: Partial<ExtractionStatus> = {}): ExtractionStatus {
  return {
    execution_id: 'products-batch-00000000-0000-0000-0000-000000000001',
    kind: 'products-batch',
    status: 'completed',
    error: null,
    created_at: '2025-01-01T00:00:00.000Z',
    start_date: '2025-01-01T00:00:01.000Z',
    stop_date: '2025-01-01T00:00:03.500Z',
    duration_ms: 2500,
    waiting_for: null,
    progress: { products_processed: 3, products_total: 3, percent_complete: 100 },
    result: {
      products_requested: 3,
      products_successful: 1,
      products_failed: 1,
      products_failed_by_reason: { other: 1 },
      products_invalid: 1,
      products_invalid_by_reason: { malformed_url: 1 },
      products_pending: 0,
    },
    credits_used: 2,
    results: {
      items: [
        success('https://shop.example/products/linen'),
        failure('https://down.example/p', 'other', true),
        failure('nope', 'malformed_url', false),
      ],
      pagination: { page: 1, page_size: 50, total_items: 3, total_pages: 1, has_next: false, has_prev: false },
    },
    ...overrides,
  };
}

describe('rich legacy record', () => {
  it('renames to the legacy names, prices variants as decimal strings and derives the price range', () => {
    const legacy = legacyProduct(record());
    expect(legacy).toMatchObject({
      price_amount: 19.9,
      price_currency: 'USD',
      min_price: 19.9,
      max_price: 24,
      platform: 'shopify',
      platform_id: '123',
    });
    expect(legacy.images[0]).toEqual({
      id: 'i1',
      url: 'https://shop.example/cdn/i1.jpg',
      width: 800,
      height: 600,
      altText: 'alt i1',
      position: 1,
      variantIDs: ['v1'],
      attributes: null,
    });
    expect(legacy.variants[0]).toMatchObject({
      id: 'v1',
      SKU: 'SKU-S',
      price: '19.90',
      compareAtPrice: '25.00',
      isAvailable: true,
      option1: 'S',
    });
    expect(legacy.variants[0].image).toMatchObject({ id: 'i1', altText: 'alt i1' });
    expect(legacy.variants[1]).toMatchObject({ price: '24.00', compareAtPrice: null, image: null });
    expect(legacy.options).toEqual([{ name: 'Size', values: ['S', 'M'], position: 1 }]);
    expect(CONTRACTS.legacyProduct.success.schema.shape.product.safeParse(legacy).success).toBe(true);
  });

  it('uses the product price as the range without variant prices, and currency minor units for strings', () => {
    const bare = legacyProduct(record({ variants: [] }));
    expect(bare).toMatchObject({ min_price: 19.9, max_price: 19.9 });
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('usd')).toBe(2);
    expect(minorDigits('BHD')).toBe(3);
    expect(minorDigits('NOT-A-CODE')).toBe(2);
    expect(minorDigits(null)).toBe(2);
    expect(priceString(1299, 'JPY')).toBe('1299');
    expect(priceString(null, 'USD')).toBeNull();
    expect(priceString(Number.NaN, 'USD')).toBeNull();
  });

  it('a failed URL: product null with outcome, retry and message; final_url only when it differs', () => {
    expect(legacyResult(failure('https://x.example/a', 'automated_access_not_permitted', true))).toEqual({
      url: 'https://x.example/a',
      success: false,
      product: null,
      outcome: 'automated_access_not_permitted',
      retry: true,
      message: 'failed: automated_access_not_permitted',
    });
    expect(legacyResult({ ...success('https://x.example/a'), final_url: 'https://x.example/a' })).not.toHaveProperty(
      'final_url',
    );
    expect(legacyResult({ ...success('https://x.example/a'), final_url: 'https://x.example/b' }).final_url).toBe(
      'https://x.example/b',
    );
    expect(
      perUrlResult({ ...success('https://x.example/a'), final_url: 'https://x.example/a' }, unlinked),
    ).not.toHaveProperty('final_url');
  });
});

describe('v1 status', () => {
  it('completed: results.products, results.meta under total_* names, pagination with limit', () => {
    const body = v1ExtractStatus(status(), unlinked);
    expect(body.progress).toEqual({ products_processed: 1, urls_completed: 3, total_urls: 3, percent_complete: 100 });
    expect(body.results!.meta).toEqual({
      total_requested: 3,
      total_successful: 1,
      total_failed: 1,
      total_failed_by_reason: { other: 1 },
      total_invalid: 1,
      total_invalid_by_reason: { malformed_url: 1 },
      total_pending: 0,
    });
    expect(body.pagination).toEqual({
      page: 1,
      limit: 50,
      total_items: 3,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(CONTRACTS.v1ProductsStatus.success.schema.safeParse(body).success).toBe(true);
  });

  it('pending: progress null, no results, no pagination', () => {
    const body = v1ExtractStatus(
      status({ status: 'pending', start_date: null, stop_date: null, duration_ms: null, results: null }),
      unlinked,
    );
    expect(body).toEqual({ status: 'pending', progress: null, error: null, credits_used: 2 });
    expect(CONTRACTS.v1ProductsStatus.success.schema.safeParse(body).success).toBe(true);
  });
});

describe('v2 status', () => {
  it('completed: data and pagination, counts in meta.result, timing in meta', () => {
    const body = v2ExtractStatus(status(), unlinked);
    expect(Object.keys(body)).toEqual(['execution_id', 'status', 'error', 'data', 'pagination', 'meta']);
    expect(body.meta).toMatchObject({
      start_date: '2025-01-01T00:00:01.000Z',
      duration_ms: 2500,
      credits_used: 2,
      result: { products_requested: 3 },
    });
    expect(body.meta).not.toHaveProperty('waiting_for');
    expect(CONTRACTS.v2ExtractStatus.success.schema.safeParse(body).success).toBe(true);
  });

  it('running: no data; waiting_for only when set', () => {
    const body = v2ExtractStatus(
      status({ status: 'pending', results: null, waiting_for: 'crawl-shop-example-0123456789ab' }),
      unlinked,
    );
    expect(body).not.toHaveProperty('data');
    expect(body).not.toHaveProperty('pagination');
    expect(body.meta.waiting_for).toBe('crawl-shop-example-0123456789ab');
    expect(CONTRACTS.v2ExtractStatus.success.schema.safeParse(body).success).toBe(true);
  });
});

describe('execution lists', () => {
  const list = {
    items: [
      {
        execution_id: 'extract-urls-1',
        status: 'processing' as const,
        state: 'running' as const,
        kind: 'extract-urls' as const,
        created_at: '2025-01-02T00:00:00.000Z',
      },
      {
        execution_id: 'products-batch-1',
        status: 'completed' as const,
        state: 'completed' as const,
        kind: 'products-batch' as const,
        created_at: '2025-01-01T00:00:00.000Z',
      },
    ],
    pagination: { page: 1, page_size: 20, total_items: 2, total_pages: 1, has_next: false, has_prev: false },
  };
  it('show only the summary fields, in both families', () => {
    expect(v1ExecutionList(list).executions[0]).toEqual({
      execution_id: 'extract-urls-1',
      status: 'processing',
      created_at: '2025-01-02T00:00:00.000Z',
    });
    const v2 = v2ExecutionList(list);
    expect(v2.meta).toEqual({});
    expect(v2.pagination.total_items).toBe(2);
    expect(CONTRACTS.v2ExtractList.success.schema.safeParse(v2).success).toBe(true);
  });
});
