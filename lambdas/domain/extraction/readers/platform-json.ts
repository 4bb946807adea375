// The platforms' own product JSON: Shopify's Ajax `/products/<handle>.js` (prices in minor
// units), Shopify's `/products/<handle>.json` ({product}, decimal strings) and the WooCommerce
// Store API product (minor-unit strings with a currency block). The most trusted source.
import type { ImageCandidate, ProductCandidate, VariantCandidate } from '../candidate';
import { parseMinorUnits } from '../price';
import { absoluteUrl, asArray, cleanText, firstString, toNumber, toPositiveInt } from '../values';

type Json = Record<string, any>;

function htmlText(html: string | null): string | null {
  if (!html) return null;
  return cleanText(
    html
      .replace(/<(br|\/p|\/div|\/li|\/h\d)[^>]*>/gi, ' ')
      .replace(/<[^>]+>/g, '')
      .replace(/&nbsp;/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'"),
  );
}

const positive = (n: number | null) => (n != null && n > 0 ? n : null);

/** Shopify `.js` (cents) or `.json` ({product: ...}, "12.00" strings). */
export function readShopifyProduct(
  payload: unknown,
  pageUrl: string,
  currency: string | null,
): ProductCandidate | null {
  if (!payload || typeof payload !== 'object') return null;
  const wrapped = (payload as Json).product;
  const p: Json = wrapped && typeof wrapped === 'object' ? wrapped : (payload as Json);
  if (!p.title || !Array.isArray(p.variants)) return null;
  // `.js` carries integer cents; `.json` carries decimal strings.
  const inCents = !wrapped && typeof p.variants[0]?.price === 'number';
  const money = (v: unknown): number | null => {
    if (v == null || v === '') return null;
    if (inCents) return positive(parseMinorUnits(v as number, currency ?? 'USD'));
    return positive(toNumber(v));
  };
  const optionNames: string[] = asArray<Json | string>(p.options).map((o) =>
    typeof o === 'string' ? o : String(o.name ?? ''),
  );
  const imageList: Json[] = asArray<Json | string>(p.images).map((img, i) =>
    typeof img === 'string' ? { src: img, position: i + 1 } : img,
  );
  const images: ImageCandidate[] = imageList
    .map((img) => ({
      url: absoluteUrl(img.src, pageUrl) ?? '',
      width: toPositiveInt(img.width),
      height: toPositiveInt(img.height),
      alt: cleanText(img.alt),
      variantIds: asArray(img.variant_ids).map(String),
    }))
    .filter((i) => i.url);
  if (!images.length && p.featured_image) {
    const url = absoluteUrl(p.featured_image, pageUrl);
    if (url) images.push({ url });
  }
  // Variant images also come back from `.js` media; make sure each variant's image is known.
  const variants: VariantCandidate[] = p.variants.map((v: Json) => {
    const values = [v.option1, v.option2, v.option3].map((x) => (x == null ? null : String(x)));
    const options: Array<[string, string]> = [];
    optionNames.forEach((name, i) => {
      if (values[i] != null && !(name === 'Title' && values[i] === 'Default Title')) options.push([name, values[i]!]);
    });
    const featured: Json | null =
      v.featured_image ?? (v.image_id ? (imageList.find((i) => i.id === v.image_id) ?? null) : null);
    const price = money(v.price);
    const compareAt = money(v.compare_at_price);
    const available = typeof v.available === 'boolean' ? v.available : null;
    const handle = p.handle ? String(p.handle) : null;
    return {
      id: v.id != null ? String(v.id) : null,
      sku: cleanText(v.sku),
      gtin: cleanText(v.barcode),
      url: handle && v.id != null ? absoluteUrl(`/products/${handle}?variant=${v.id}`, pageUrl) : null,
      title: cleanText(v.title ?? v.public_title),
      options,
      price,
      currency,
      compareAt: compareAt != null && price != null && compareAt > price ? compareAt : null,
      availability: available == null ? null : available ? 'InStock' : 'OutOfStock',
      image: featured?.src
        ? {
            url: absoluteUrl(featured.src, pageUrl) ?? String(featured.src),
            width: toPositiveInt(featured.width),
            height: toPositiveInt(featured.height),
            alt: cleanText(featured.alt),
            variantIds: asArray(featured.variant_ids).map(String),
          }
        : null,
    } satisfies VariantCandidate;
  });
  const options = optionNames
    .map((name, i) => ({
      name,
      values: [
        ...new Set(
          p.variants
            .map((v: Json) => v[`option${i + 1}`])
            .filter((x: unknown) => x != null)
            .map(String),
        ),
      ] as string[],
    }))
    .filter((o) => !(o.name === 'Title' && o.values.length === 1 && o.values[0] === 'Default Title'));
  const priced = variants.filter((v) => v.price != null);
  const cheapest = priced.length ? priced.reduce((a, b) => (b.price! < a.price! ? b : a)) : null;
  // `.json` variants carry no `available`: unknown stays unknown (null) for the next source to
  // fill, never "not in stock".
  const available =
    typeof p.available === 'boolean'
      ? p.available
      : variants.some((v) => v.availability === 'InStock')
        ? true
        : variants.length && variants.every((v) => v.availability === 'OutOfStock')
          ? false
          : null;
  const tags = Array.isArray(p.tags)
    ? p.tags.map(String)
    : typeof p.tags === 'string'
      ? p.tags.split(',').map((t: string) => t.trim())
      : [];
  const bodyHtml = typeof (p.description ?? p.body_html) === 'string' ? String(p.description ?? p.body_html) : null;
  const all = priced.map((v) => v.price!);
  return {
    source: 'platform_json',
    title: cleanText(p.title),
    descriptionHtml: bodyHtml,
    description: htmlText(bodyHtml),
    vendor: cleanText(p.vendor),
    brand: cleanText(p.vendor),
    platformId: p.id != null ? String(p.id) : null,
    handle: p.handle ? String(p.handle) : null,
    url: p.handle ? absoluteUrl(`/products/${p.handle}`, pageUrl) : null,
    productType: cleanText(p.type ?? p.product_type),
    tags: tags.filter(Boolean),
    images,
    price: cheapest?.price ?? money(p.price),
    currency,
    compareAt: cheapest?.compareAt ?? null,
    priceRange:
      all.length && Math.max(...all) > Math.min(...all) ? { min: Math.min(...all), max: Math.max(...all) } : null,
    availability: available == null ? null : available ? 'InStock' : 'OutOfStock',
    options,
    variants,
    sku: variants.length === 1 ? variants[0].sku : null,
  };
}

/** WooCommerce Store API product (`/wp-json/wc/store/v1/products/<id>`). */
export function readWooProduct(payload: unknown, pageUrl: string): ProductCandidate | null {
  const p = (Array.isArray(payload) ? payload[0] : payload) as Json | undefined;
  if (!p || typeof p !== 'object' || !p.name || !p.prices) return null;
  const prices: Json = p.prices;
  const currency = firstString(prices.currency_code)?.toUpperCase() ?? null;
  const minor = toNumber(prices.currency_minor_unit) ?? 2;
  const money = (v: unknown): number | null => {
    if (v == null || v === '') return null;
    const n = toNumber(v);
    return n == null ? null : positive(Math.round((n / 10 ** minor) * 10 ** minor) / 10 ** minor);
  };
  const price = money(prices.sale_price ?? prices.price) ?? money(prices.price);
  const regular = money(prices.regular_price);
  const range = prices.price_range
    ? { min: money(prices.price_range.min_amount), max: money(prices.price_range.max_amount) }
    : null;
  const images: ImageCandidate[] = asArray<Json>(p.images)
    .map((img) => ({ url: absoluteUrl(img.src, pageUrl) ?? '', alt: cleanText(img.alt) || null }))
    .filter((i) => i.url);
  const attributes = asArray<Json>(p.attributes).filter((a) => a.has_variations !== false);
  const options = attributes
    .map((a) => ({ name: String(a.name), values: asArray<Json>(a.terms).map((t) => String(t.name)) }))
    .filter((o) => o.values.length);
  const variants: VariantCandidate[] = asArray<Json>(p.variations).map((v) => ({
    id: v.id != null ? String(v.id) : null,
    options: asArray<Json>(v.attributes).map((a) => {
      const option = options.find((o) => o.name.toLowerCase() === String(a.name).toLowerCase());
      const value = option?.values.find((x) => x.toLowerCase() === String(a.value).toLowerCase()) ?? String(a.value);
      return [option?.name ?? String(a.name), value] as [string, string];
    }),
    url: absoluteUrl(p.permalink, pageUrl),
  }));
  const descriptionHtml = firstString(p.description) ? String(p.description) : null;
  return {
    source: 'platform_json',
    title: cleanText(htmlText(String(p.name))),
    descriptionHtml,
    description: htmlText(descriptionHtml) ?? htmlText(p.short_description ?? null),
    brand:
      asArray<Json>(p.brands)
        .map((b) => cleanText(b.name))
        .find(Boolean) ?? null,
    sku: cleanText(p.sku),
    platformId: p.id != null ? String(p.id) : null,
    handle: cleanText(p.slug),
    url: absoluteUrl(p.permalink, pageUrl),
    productType:
      asArray<Json>(p.categories)
        .map((c) => cleanText(c.name))
        .find(Boolean) ?? null,
    tags: asArray<Json>(p.tags).map((t) => String(t.name)),
    images,
    price: price ?? range?.min ?? null,
    currency,
    compareAt: regular != null && price != null && regular > price ? regular : null,
    priceRange:
      range?.min != null && range.max != null && range.max > range.min ? { min: range.min, max: range.max } : null,
    availability: p.is_in_stock === false ? 'OutOfStock' : p.is_in_stock === true ? 'InStock' : null,
    options,
    variants,
    rating: toNumber(p.average_rating)
      ? { value: toNumber(p.average_rating), count: toPositiveInt(p.review_count), scale: 5 }
      : null,
  };
}
