// From the merged product to the spec's full product record: every field present, flags
// deciding which optional parts are filled, deterministic ids, sanitised description HTML.
import sanitizeHtml from 'sanitize-html';
import type { Enricher } from '../../ports/enricher';
import type { ImageCandidate, VariantCandidate } from './candidate';
import { canonicalProductUrl, uuidV5 } from './ids';
import type { MergedProduct } from './merge';
import { handleFromUrl } from './product-url';
import type { ExtractOptions, Platform, ProductImage, ProductOption, ProductRecord, ProductVariant } from './types';
import { cleanText, isAvailable } from './values';

const ALLOWED_TAGS = [
  'p',
  'br',
  'ul',
  'ol',
  'li',
  'strong',
  'b',
  'em',
  'i',
  'u',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'span',
  'div',
  'a',
  'blockquote',
  'dl',
  'dt',
  'dd',
  'sup',
  'sub',
];

export function sanitizeDescriptionHtml(html: string | null): string | null {
  if (!html) return null;
  const clean = sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: { a: ['href', 'title', 'rel'], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener' }) },
  }).trim();
  return clean || null;
}

export function htmlToPlainText(html: string | null): string | null {
  if (!html) return null;
  const text = sanitizeHtml(html.replace(/<(br|\/p|\/div|\/li|\/h\d|\/tr)[^>]*>/gi, '$& '), {
    allowedTags: [],
    allowedAttributes: {},
  });
  return cleanText(
    text
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'"),
  );
}

export interface NormaliseContext {
  /** Landing URL of the page. */
  pageUrl: string;
  canonicalUrl: string | null;
  platform: Platform | null;
  options: ExtractOptions;
  enricher: Enricher;
  breadcrumbs: string[];
  faqs: ProductRecord['faqs'];
  relatedUrls: string[];
  pageDescriptionHtml: string | null;
  now: Date;
}

function sameSite(a: string, b: string): boolean {
  try {
    return new URL(a).hostname.replace(/^www\./, '') === new URL(b).hostname.replace(/^www\./, '');
  } catch {
    return false;
  }
}

function deriveImageAttributes(
  image: ProductImage,
  variants: ProductVariant[],
  options: ProductOption[],
): Record<string, unknown> {
  // Only facts readable from the page: role by position, the variants it shows, option values
  // named in its alt text. Nothing is guessed from pixels.
  const alt = (image.alt_text ?? '').toLowerCase();
  const mentioned: Record<string, string> = {};
  for (const option of options) {
    const hit = option.values.find((v) => v.length > 1 && alt.includes(v.toLowerCase()));
    if (hit) mentioned[option.name] = hit;
  }
  const shownBy = variants.filter((v) => image.variant_ids.includes(v.id));
  const variantValues: Record<string, string[]> = {};
  for (const v of shownBy) {
    options.forEach((o, i) => {
      const value = [v.option1, v.option2, v.option3][i];
      if (value) variantValues[o.name] = [...new Set([...(variantValues[o.name] ?? []), value])];
    });
  }
  return {
    role: image.position === 1 ? 'primary' : 'gallery',
    is_variant_image: image.variant_ids.length > 0,
    variant_option_values: variantValues,
    alt_text_option_values: mentioned,
    alt_text_terms: alt ? [...new Set(alt.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2))].slice(0, 20) : [],
  };
}

/** The product's own address: the merged URL or the page's canonical when on the page's site, else the page. */
function productUrlOf(merged: MergedProduct, ctx: NormaliseContext): string {
  const canonicalSource =
    merged.url && sameSite(merged.url, ctx.pageUrl)
      ? merged.url
      : ctx.canonicalUrl && sameSite(ctx.canonicalUrl, ctx.pageUrl)
        ? ctx.canonicalUrl
        : ctx.pageUrl;
  return canonicalProductUrl(canonicalSource);
}

/**
 * The record's images (the first 50 merged ones) and `imageFor`, which finds a variant's image
 * among them (size suffixes aside) or appends it: a variant may show an image no gallery lists.
 */
function imageList(merged: MergedProduct, id: string) {
  const images: ProductImage[] = merged.images.slice(0, 50).map((img, i) => ({
    id: uuidV5(`${id}#image#${img.url}`),
    url: img.url,
    width: img.width ?? null,
    height: img.height ?? null,
    alt_text: img.alt ?? null,
    position: i + 1,
    variant_ids: [] as string[],
    attributes: null,
  }));
  const imageFor = (candidate: ImageCandidate | null | undefined): ProductImage | null => {
    if (!candidate) return null;
    const key = (u: string) =>
      u
        .replace(/^https?:/, '')
        .replace(/\?.*$/, '')
        .replace(/_(\d+x\d*|\d*x\d+)(?=\.[a-z]+$)/i, '');
    const found = images.find((im) => key(im.url) === key(candidate.url));
    if (found) return found;
    const added: ProductImage = {
      id: uuidV5(`${id}#image#${candidate.url}`),
      url: candidate.url.startsWith('//') ? `https:${candidate.url}` : candidate.url,
      width: candidate.width ?? null,
      height: candidate.height ?? null,
      alt_text: candidate.alt ?? null,
      position: images.length + 1,
      variant_ids: [],
      attributes: null,
    };
    images.push(added);
    return added;
  };
  return { images, imageFor };
}

/**
 * The record's variants (at most 250); a product without variants is its own single variant.
 * Each variant's image is linked to it (`imageFor` may add the image to the record's list).
 */
function recordVariants(
  merged: MergedProduct,
  productUrl: string,
  id: string,
  productOptions: ProductOption[],
  imageFor: (candidate: ImageCandidate | null | undefined) => ProductImage | null,
): ProductVariant[] {
  const currency = merged.currency;
  const sourceVariants: VariantCandidate[] = merged.variants.length
    ? merged.variants
    : [
        {
          sku: merged.sku,
          gtin: merged.gtin,
          url: productUrl,
          title: merged.title,
          options: [],
          price: merged.price,
          currency,
          compareAt: merged.compareAt,
          availability: merged.availability,
          image: merged.images[0] ?? null,
          id: null,
        },
      ];
  return sourceVariants.slice(0, 250).map((v, index) => {
    const value = (i: number) => {
      const name = productOptions[i]?.name;
      return name ? (v.options.find(([n]) => n === name)?.[1] ?? null) : null;
    };
    const variantId =
      v.id ?? uuidV5(`${id}#variant#${v.sku ?? ''}#${v.options.map(([n, x]) => `${n}=${x}`).join('&')}#${index}`);
    const image = imageFor(v.image);
    if (image && !image.variant_ids.includes(variantId)) image.variant_ids.push(variantId);
    const price = v.price ?? null;
    return {
      id: variantId,
      sku: v.sku ?? null,
      url: v.url ?? null,
      title: v.title ?? null,
      option1: value(0),
      option2: value(1),
      option3: value(2),
      is_available: isAvailable(v.availability),
      // A variant carries only what was stated for it: no base price copied in.
      // Every price object carries its currency, stated or not for this variant.
      price: {
        currency: v.currency ?? currency,
        current_value: price,
        compare_at_value: v.compareAt != null && price != null && v.compareAt > price ? v.compareAt : null,
      },
      image,
      affiliate_link: null,
    };
  });
}

/** The enricher's reading of the product (options and stated facts as its option map). */
function enrich(
  merged: MergedProduct,
  productOptions: ProductOption[],
  description: string | null,
  ctx: NormaliseContext,
): ReturnType<Enricher['enrich']> {
  const optionMap: Record<string, string[]> = {};
  for (const o of productOptions) optionMap[o.name] = o.values;
  for (const [k, v] of Object.entries(merged.facts)) if (!optionMap[k]) optionMap[k] = [v];
  return ctx.enricher.enrich({
    title: merged.title,
    description,
    brand: merged.brand,
    tags: merged.tags,
    storeProductType: merged.productType ?? merged.category,
    options: optionMap,
    breadcrumbs: ctx.breadcrumbs,
  });
}

export async function normaliseProduct(merged: MergedProduct, ctx: NormaliseContext): Promise<ProductRecord> {
  const { options: flags } = ctx;
  const productUrl = productUrlOf(merged, ctx);
  const id = uuidV5(productUrl);
  const host = new URL(ctx.pageUrl).hostname.toLowerCase();
  const currency = merged.currency;

  const { images, imageFor } = imageList(merged, id);
  const productOptions: ProductOption[] = merged.options
    .slice(0, 3)
    .map((o, i) => ({ name: o.name, values: o.values, position: i + 1 }));
  const variants = recordVariants(merged, productUrl, id, productOptions, imageFor);
  // Platform JSON names the variants of each image by platform id.
  merged.images.forEach((img, i) => {
    for (const vid of img.variantIds ?? [])
      if (images[i] && variants.some((v) => v.id === vid) && !images[i].variant_ids.includes(vid))
        images[i].variant_ids.push(vid);
  });
  if (flags.enableImageTags)
    for (const image of images) image.attributes = deriveImageAttributes(image, variants, productOptions);

  const anyVariantKnown = variants.some((v) => v.is_available != null);
  const isAvailableNow = anyVariantKnown
    ? variants.some((v) => v.is_available === true)
    : isAvailable(merged.availability);

  const descriptionHtml = sanitizeDescriptionHtml(merged.descriptionHtml ?? ctx.pageDescriptionHtml);
  const description = merged.description ?? htmlToPlainText(descriptionHtml);
  const enrichment = flags.enableEnrichment ? await enrich(merged, productOptions, description, ctx) : null;

  const rating = merged.rating;
  return {
    id,
    title: merged.title,
    description,
    description_html: descriptionHtml,
    vendor: merged.vendor ?? merged.brand,
    brand: merged.brand,
    url: productUrl,
    handle: merged.handle ?? handleFromUrl(productUrl),
    is_available: isAvailableNow,
    attributes: enrichment ? enrichment.attributes : null,
    price: {
      currency: merged.price != null ? currency : (currency ?? null),
      current_value: merged.price,
      compare_at_value: merged.compareAt,
    },
    images,
    options: productOptions,
    variants,
    store_canonical_url: `${new URL(ctx.pageUrl).protocol}//${host}`,
    store_domain: host.replace(/^www\./, ''),
    platform: ctx.platform,
    platform_id: merged.platformId,
    product_type: enrichment ? (enrichment.product_type ?? merged.productType) : null,
    taxonomy_product_category_id: enrichment ? enrichment.taxonomy_product_category_id : null,
    taxonomy_product_category_path: enrichment ? enrichment.taxonomy_product_category_path : null,
    tags: merged.tags,
    video_url: merged.videoUrl,
    review_count: rating?.count ?? null,
    average_rating: rating?.value ?? null,
    rating_scale: rating?.value != null ? (rating.scale ?? 5) : null,
    faqs: flags.enableReviews ? (ctx.faqs ?? []) : null,
    reviews: flags.enableReviews ? merged.reviews : null,
    updated_at: ctx.now.toISOString(),
    similar_products: flags.enableSimilarProducts
      ? [...new Set([...merged.related, ...ctx.relatedUrls])]
          .filter((u) => u !== productUrl)
          .slice(0, 20)
          .map((url) => ({ url }))
      : null,
    affiliate_link: null,
  };
}
