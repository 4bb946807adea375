// The store simulator's public surface (see README.md in this folder).
export { startStoreSimulator, type RequestCounts, type StoreSimulator, type StoreSimulatorOptions } from './server';
export {
  CRAWL_STORE_SPECS,
  buildCrawlStore,
  robotsPatternMatches,
  type CrawlCatalog,
  type CrawlKind,
  type CrawlStoreSpec,
  type CrawlTwist,
  type ProductChange,
  type SimCollection,
} from './crawl-catalog';
export {
  STORE_SPECS,
  PATHS,
  PRICE_STYLES,
  buildStore,
  generateProduct,
  listProductUrls,
  flakyFailuresFor,
  rng,
  type Behaviour,
  type Flavor,
  type Markup,
  type PriceStyle,
  type SimProduct,
  type SimReview,
  type SimVariant,
  type StoreModel,
  type StoreSpec,
} from './catalog';
export { SITEMAP_PAGE_SIZE, shopifyAjaxProduct, shopifyJsonProduct, wooProduct } from './pages';
