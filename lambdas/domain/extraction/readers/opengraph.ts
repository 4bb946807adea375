// OpenGraph and product:* meta tags (Facebook/Pinterest product pins), plus twitter: fallbacks.
import type { CheerioAPI } from 'cheerio';
import type { ProductCandidate } from '../candidate';
import { absoluteUrl, cleanText, currencyCode, markupPrice, normaliseAvailability } from '../values';

export interface MetaTags {
  get(name: string): string | null;
  all(name: string): string[];
}

export function readMetaTags($: CheerioAPI): MetaTags {
  const map = new Map<string, string[]>();
  $('meta').each((_, el) => {
    const key = (el.attribs.property ?? el.attribs.name ?? el.attribs.itemprop ?? '').toLowerCase().trim();
    const content = el.attribs.content;
    if (!key || content == null) return;
    const list = map.get(key) ?? [];
    list.push(content);
    map.set(key, list);
  });
  return {
    get: (name) => cleanText(map.get(name)?.[0] ?? null),
    all: (name) => map.get(name) ?? [],
  };
}

export function readOpenGraph(meta: MetaTags, pageUrl: string, countryCode: string | null): ProductCandidate | null {
  const first = (...names: string[]) => {
    for (const n of names) {
      const v = meta.get(n);
      if (v) return v;
    }
    return null;
  };
  const currency = currencyCode(first('product:price:currency', 'og:price:currency', 'product:sale_price:currency'));
  const sale = markupPrice(first('product:sale_price:amount'), currency, countryCode);
  const amount = markupPrice(first('product:price:amount', 'og:price:amount', 'product:price'), currency, countryCode);
  const standard = markupPrice(
    first('og:price:standard_amount', 'product:original_price:amount', 'product:price:standard_amount'),
    currency,
    countryCode,
  );
  const price = sale ?? amount;
  const compareAt = sale != null && amount != null && amount > sale ? amount : standard;
  const images = meta
    .all('og:image')
    .concat(meta.all('og:image:url'), meta.all('og:image:secure_url'))
    .map((u) => absoluteUrl(u, pageUrl))
    .filter((u): u is string => !!u);
  const width = Number(meta.get('og:image:width')) || null;
  const height = Number(meta.get('og:image:height')) || null;
  const candidate: ProductCandidate = {
    source: 'opengraph',
    title: first('og:title', 'twitter:title'),
    description: first('og:description', 'twitter:description', 'description'),
    brand: first('product:brand', 'og:brand'),
    sku: first('product:retailer_item_id', 'product:sku', 'og:product:sku', 'og:sku'),
    gtin: first('product:gtin', 'product:ean', 'product:upc'),
    url: absoluteUrl(first('og:url'), pageUrl),
    category: first('product:category'),
    images: [...new Set(images)].map((url, i) => ({
      url,
      width: i === 0 ? width : null,
      height: i === 0 ? height : null,
      alt: i === 0 ? first('og:image:alt') : null,
    })),
    price,
    currency,
    compareAt,
    availability: normaliseAvailability(first('product:availability', 'og:availability')),
    videoUrl: absoluteUrl(first('og:video', 'og:video:url', 'og:video:secure_url'), pageUrl),
  };
  return candidate;
}
