// Shared fixtures of the agentic unit tests: a complete product record to vary per case.
import type { ProductRecord } from '../../lambdas/domain/extraction/types';

export function product(overrides: Partial<ProductRecord> = {}): ProductRecord {
  return {
    id: 'p1',
    title: 'Classic Cotton Tee',
    description: 'A tee. Pairs well with black jeans.',
    description_html: null,
    vendor: 'Shop',
    brand: 'Northwind',
    url: 'https://shop.test/products/classic-cotton-tee-1',
    handle: 'classic-cotton-tee-1',
    is_available: true,
    attributes: { color: { iscc_family: 'blue', merchant_label: 'Navy' }, material: { primary: 'cotton', merchant_label: 'Cotton' }, style: ['casual'] },
    price: { currency: 'USD', current_value: 25, compare_at_value: null },
    images: [{ id: 'i1', url: 'https://shop.test/cdn/images/tee-1.jpg', width: 1200, height: 1200, alt_text: null, position: 1, variant_ids: [], attributes: null }],
    options: [],
    variants: [],
    store_canonical_url: null,
    store_domain: 'shop.test',
    platform: null,
    platform_id: null,
    product_type: 'T-Shirts',
    taxonomy_product_category_id: null,
    taxonomy_product_category_path: 'Apparel & Accessories > Clothing > Clothing Tops > T-Shirts',
    tags: ['t-shirts', 'cotton'],
    video_url: null,
    review_count: null,
    average_rating: null,
    rating_scale: null,
    faqs: null,
    reviews: null,
    updated_at: '2026-01-01T00:00:00.000Z',
    similar_products: null,
    affiliate_link: null,
    ...overrides,
  };
}
