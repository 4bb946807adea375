// Is this a product page? Weighs the URL's shape against page signals: structured-data
// entities (one Product vs many, or articles/events), og:type, product cards, a buy button,
// a displayed price. Returns the decision and a human reason for non-product pages.
import type { PageAnalysis } from './analyse';
import type { MergedProduct } from './merge';
import { urlKind } from './product-url';

export interface PageClassification {
  isProduct: boolean;
  score: number;
  reason: string;
}

const KIND_REASON: Record<string, string> = {
  home: 'a shop home page',
  collection: 'a collection or category page',
  search: 'a search results page',
  cart: 'a cart or checkout page',
  account: 'an account page',
  blog: 'a blog or article page',
  info: 'an information page',
};

export function classifyPage(
  analysis: PageAnalysis,
  merged: MergedProduct,
  platformConfirmed: boolean,
): PageClassification {
  const kind = urlKind(analysis.url);
  const { facts, dom } = analysis;
  const entities = facts.productEntityCount;
  const hasEntity = entities > 0 && (analysis.jsonLd.product || analysis.microdata.product);
  const listing = facts.listingTypes.some((t) => /^(ItemList|CollectionPage|SearchResultsPage|OfferCatalog)$/.test(t));
  const article = facts.listingTypes.some((t) =>
    /^(Blog|BlogPosting|Article|NewsArticle|Recipe|Event|MusicEvent|TheaterEvent|SportsEvent|Course|JobPosting|Movie|Person|SoftwareSourceCode|TechArticle|ScholarlyArticle|LiveBlogPosting|Report)$/.test(
      t,
    ),
  );
  let score = 0;
  const why: string[] = [];
  if (platformConfirmed) score += 5;
  if (hasEntity && entities <= 2) score += 4;
  if (facts.ogType === 'product' || facts.ogType === 'og:product' || facts.ogType === 'product.item') score += 3;
  if (analysis.openGraph?.price != null) score += 2;
  if (dom.hasAddToCart) score += 2;
  // An item sold by enquiry (a classified ad, a car: "Contact seller", "Schedule a test drive")
  // with its price shown is one product for sale, like one with a buy button.
  else if (dom.hasEnquiry && merged.price != null) score += 2;
  if (dom.product.price != null) score += 1;
  if (merged.sku || merged.gtin) score += 1;
  if (kind === 'product') score += 2;
  if (kind !== 'product' && kind !== 'unknown') {
    score -= kind === 'info' ? 3 : 6;
    why.push(`the URL is ${KIND_REASON[kind]}`);
  }
  if (entities >= 3) {
    score -= 5;
    why.push(`it lists ${entities} products`);
  }
  if (listing && !platformConfirmed) {
    score -= 3;
    why.push('its structured data describes a list of items');
  }
  // An event sold on the page (a ticket: a shown price and a buy control) is something to buy.
  const soldEvent =
    dom.hasAddToCart &&
    merged.price != null &&
    facts.listingTypes.every(
      (t) =>
        !/^(Blog|BlogPosting|Article|NewsArticle|TechArticle|ScholarlyArticle|LiveBlogPosting|Report|Recipe|Person|Movie|Course|JobPosting|SoftwareSourceCode)$/.test(
          t,
        ),
    );
  if (article && !hasEntity && !soldEvent) {
    score -= 4;
    why.push('its structured data describes an article or event, not a product');
  }
  if (dom.productCardCount >= 4 && !hasEntity && !platformConfirmed) {
    score -= 3;
    why.push(`it shows ${dom.productCardCount} product cards`);
  }
  if (
    facts.ogType &&
    /^(article|blog|website|video|music|profile|book)/.test(facts.ogType) &&
    !hasEntity &&
    !platformConfirmed
  ) {
    score -= facts.ogType === 'website' ? 1 : 3;
    if (facts.ogType !== 'website') why.push(`it declares og:type ${facts.ogType}`);
  }
  if (merged.price == null && !hasEntity && !platformConfirmed) {
    score -= 2;
    why.push('no product price is shown');
  }
  const isProduct = score > 0;
  const reason = isProduct
    ? ''
    : why.length
      ? `Not a product page: ${why.join('; ')}.`
      : 'Not a product page: no single product with a title and a price was found.';
  return { isProduct, score, reason };
}
