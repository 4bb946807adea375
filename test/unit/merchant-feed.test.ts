// The Merchant Center mapping and rules (lambdas/domain/feeds): one item per variant with the
// specification's attribute names and formats, and each disapproval rule on an item that breaks
// it and on one that does not; GS1 check digits; the RSS 2.0 document.
import { describe, expect, it } from 'vitest';
import { gs1CheckDigit, gtinProblem } from '../../lambdas/domain/feeds/gtin';
import { merchantItems, merchantPrice, refusalsOf, type MerchantItem } from '../../lambdas/domain/feeds/merchant';
import { rssDocument } from '../../lambdas/domain/feeds/rss';
import type { ProductRecord, ProductVariant } from '../../lambdas/domain/extraction/types';

const image = (n: number) => ({
  id: `img-${n}`,
  url: `https://shop.example/img/${n}.jpg`,
  width: 800,
  height: 800,
  alt_text: null,
  position: n,
  variant_ids: [],
  attributes: null,
});

const variant = (id: string, values: [string, string], price: number, compareAt: number | null, available: boolean) =>
  ({
    id,
    sku: `SKU-${id}`,
    url: `https://shop.example/products/tee?variant=${id}`,
    title: values.join(' / '),
    option1: values[0],
    option2: values[1],
    option3: null,
    is_available: available,
    price: { currency: 'USD', current_value: price, compare_at_value: compareAt },
    image: image(2),
    affiliate_link: null,
  }) satisfies ProductVariant;

function record(overrides: Partial<ProductRecord> = {}): ProductRecord {
  return {
    id: '3f0e7c1a-0000-5000-8000-000000000001',
    title: 'Organic Cotton Tee',
    description: 'A soft tee.',
    description_html: '<p>A soft tee.</p>',
    vendor: 'Shop',
    brand: 'Acme',
    url: 'https://shop.example/products/tee',
    handle: 'tee',
    is_available: true,
    attributes: null,
    price: { currency: 'USD', current_value: 20, compare_at_value: 25 },
    images: [1, 2, 3].map(image),
    options: [
      { name: 'Size', values: ['S', 'M'], position: 1 },
      { name: 'Colour', values: ['Red'], position: 2 },
    ],
    variants: [variant('101', ['S', 'Red'], 20, 25, true), variant('102', ['M', 'Red'], 22, null, false)],
    store_canonical_url: null,
    store_domain: 'shop.example',
    platform: 'shopify',
    platform_id: null,
    product_type: 'T-Shirts',
    taxonomy_product_category_id: 'gid://shopify/TaxonomyCategory/aa-1-13-8',
    taxonomy_product_category_path: 'Apparel & Accessories > Clothing > Clothing Tops > T-Shirts',
    tags: [],
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

const valid: MerchantItem = {
  id: 'A1',
  title: 'Tee',
  description: 'A tee.',
  link: 'https://shop.example/p',
  image_link: 'https://shop.example/i.jpg',
  price: '10.00 USD',
  availability: 'in_stock',
  brand: 'Acme',
  condition: 'new',
};
const codes = (item: Partial<MerchantItem>) => refusalsOf(item).map((r) => r.code);

describe('merchantItems', () => {
  it('gives one item per variant, grouped, with the specification attribute names and formats', () => {
    const { items, refused } = merchantItems(record());
    expect(refused).toEqual([]);
    expect(items).toEqual([
      {
        id: '101',
        title: 'Organic Cotton Tee - S / Red',
        description: 'A soft tee.',
        link: 'https://shop.example/products/tee?variant=101',
        image_link: 'https://shop.example/img/2.jpg',
        additional_image_link: ['https://shop.example/img/1.jpg', 'https://shop.example/img/3.jpg'],
        price: '25.00 USD',
        sale_price: '20.00 USD',
        availability: 'in_stock',
        brand: 'Acme',
        identifier_exists: 'no',
        item_group_id: '3f0e7c1a-0000-5000-8000-000000000001',
        google_product_category: 'Apparel & Accessories',
        product_type: 'Apparel & Accessories > Clothing > Clothing Tops > T-Shirts',
        condition: 'new',
        color: 'Red',
        size: 'S',
      },
      expect.objectContaining({ id: '102', price: '22.00 USD', availability: 'out_of_stock', size: 'M' }),
    ]);
    expect(items[1]!.sale_price).toBeUndefined();
  });

  it('gives a product without variants one item under its own id, without item_group_id, at its own price', () => {
    const { items } = merchantItems(record({ variants: [], options: [] }));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: '3f0e7c1a-0000-5000-8000-000000000001', price: '25.00 USD' });
    expect(items[0]!.item_group_id).toBeUndefined();
    expect(items[0]!.title).toBe('Organic Cotton Tee');
  });

  it('refuses a variant of several without its own price rather than giving it the product price', () => {
    const noPrice = {
      ...variant('103', ['L', 'Red'], 0, null, true),
      price: { currency: 'USD', current_value: null, compare_at_value: null },
    };
    const { items, refused } = merchantItems(
      record({ variants: [variant('101', ['S', 'Red'], 20, null, true), noPrice] }),
    );
    expect(items.map((i) => i.id)).toEqual(['101']);
    expect(refused).toEqual([
      {
        id: '103',
        product_url: 'https://shop.example/products/tee',
        variant_id: '103',
        reasons: [expect.objectContaining({ attribute: 'price', code: 'missing_price' })],
      },
    ]);
  });

  it('lists every reason of a refused item and keeps unknown values out instead of inventing them', () => {
    const { refused } = merchantItems(
      record({ variants: [], images: [], brand: null, is_available: null, description: '  ', title: 'x'.repeat(151) }),
    );
    expect(refused[0]!.reasons.map((r) => r.code)).toEqual([
      'title_too_long',
      'missing_description',
      'missing_image_link',
      'missing_availability',
      'missing_brand',
    ]);
  });

  it('sends only a Google top-level category and the whole path as product_type', () => {
    const [item] = merchantItems(
      record({ taxonomy_product_category_path: 'Gift Cards > Digital', variants: [] }),
    ).items;
    expect(item!.google_product_category).toBeUndefined();
    expect(item!.product_type).toBe('Gift Cards > Digital');
  });
});

describe('the rules', () => {
  it('takes a valid item', () => expect(refusalsOf(valid)).toEqual([]));

  it.each([
    [{ title: '' }, 'missing_title'],
    [{ title: 't'.repeat(151) }, 'title_too_long'],
    [{ description: 'd'.repeat(5001) }, 'description_too_long'],
    [{ link: 'ftp://shop.example/p' }, 'invalid_link'],
    [{ link: 'javascript:alert(1)' }, 'invalid_link'],
    [{ image_link: undefined }, 'missing_image_link'],
    [{ image_link: 'data:image/png;base64,AAAA' }, 'invalid_image_link'],
    [{ additional_image_link: ['//cdn.example/a.jpg'] }, 'invalid_additional_image_link'],
    [{ price: undefined }, 'missing_price'],
    [{ availability: undefined }, 'missing_availability'],
    [{ availability: 'preorder' }, 'missing_availability_date'],
    [{ availability: 'backorder' }, 'missing_availability_date'],
    [{ availability: 'preorder', availability_date: '25 December' }, 'invalid_availability_date'],
    [{ brand: undefined }, 'missing_brand'],
    [{ brand: 'b'.repeat(71) }, 'brand_too_long'],
    [{ gtin: '4006381333932' }, 'invalid_gtin'],
    [{ mpn: 'm'.repeat(71) }, 'mpn_too_long'],
    [{ item_group_id: 'g'.repeat(51) }, 'item_group_id_too_long'],
  ] as Array<[Partial<MerchantItem>, string]>)('refuses %j as %s', (change, code) => {
    expect(codes({ ...valid, ...change })).toEqual([code]);
  });

  it('keeps what is at a limit or permitted', () => {
    expect(codes({ ...valid, title: 't'.repeat(150), description: 'd'.repeat(5000), brand: 'b'.repeat(70) })).toEqual(
      [],
    );
    expect(codes({ ...valid, availability: 'preorder', availability_date: '2026-12-25T13:00-0800' })).toEqual([]);
    expect(codes({ ...valid, brand: undefined, condition: 'used' })).toEqual([]);
    expect(codes({ ...valid, gtin: '4006381333931' })).toEqual([]);
  });
});

describe('GS1 identifiers and prices', () => {
  it('computes and checks GS1 check digits of every GTIN length', () => {
    expect(gs1CheckDigit('400638133393')).toBe(1);
    expect(gtinProblem('4006381333931')).toBeNull(); // EAN-13
    expect(gtinProblem('036000291452')).toBeNull(); // UPC-A
    expect(gtinProblem('96385074')).toBeNull(); // EAN-8
    expect(gtinProblem('10614141000415')).toBeNull(); // GTIN-14
    expect(gtinProblem('0360 0029-1452')).toBeNull();
    expect(gtinProblem('036000291453')).toBe('gtin check digit is wrong');
    expect(gtinProblem('12345')).toBe('gtin must have 8, 12, 13 or 14 digits');
    expect(gtinProblem('ABC123')).toBe('gtin must be digits only');
    expect(gtinProblem('00000000')).toBe('gtin must not be all zeros');
  });

  it("formats a price with its currency's fraction digits and refuses what is no ISO 4217 code", () => {
    expect(merchantPrice(15, 'USD')).toBe('15.00 USD');
    expect(merchantPrice(4999, 'JPY')).toBe('4999 JPY');
    expect(merchantPrice(1.5, 'KWD')).toBe('1.500 KWD');
    expect(merchantPrice(10, 'usd')).toBeNull();
    expect(merchantPrice(10, '$')).toBeNull();
  });
});

describe('rssDocument', () => {
  it('writes RSS 2.0 with the g: namespace, repeated elements and escaped, XML-legal text', () => {
    const xml = rssDocument({ title: 'Shop & Co', link: 'https://shop.example/', description: 'Feed' }, [
      {
        ...valid,
        title: 'Tee <"cotton"> & \'more\'\u0001',
        additional_image_link: ['https://a/1.jpg', 'https://a/2.jpg'],
      },
    ]);
    expect(xml).toContain('<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">');
    expect(xml).toContain('<title>Shop &amp; Co</title>');
    expect(xml).toContain('<g:title>Tee &lt;&quot;cotton&quot;&gt; &amp; &apos;more&apos;</g:title>');
    expect(xml.match(/<g:additional_image_link>/g)).toHaveLength(2);
    expect(xml).toContain('<g:price>10.00 USD</g:price>');
  });
});
