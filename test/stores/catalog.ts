// Deterministic product catalogs for the store simulator. Product i of a store is derived from
// (seed, host, i) alone, so a store of 50,000 products costs nothing until a page is asked for
// and tests can compute the exact ground truth of any page they fetch.
import type { Platform } from '../../lambdas/domain/extraction/types';

export type Markup = 'jsonld' | 'productgroup' | 'microdata' | 'opengraph' | 'dom' | 'malformed-jsonld';

/** Special behaviour of the hostile hosts. */
export type Behaviour =
  | 'robots-blocked'
  | 'bot-wall'
  | 'rate-limited'
  | 'slow'
  | 'flaky'
  | 'redirect-chain'
  | 'redirect-private'
  | 'non-html'
  | 'huge'
  | 'stale-jsonld';

export interface PriceStyle {
  currency: string;
  /** How the visible page writes a price. */
  format: (amount: number) => string;
  /** Scales generated prices so thousands separators appear. */
  scale: number;
  language: string;
}

export interface StoreModel {
  host: string;
  name: string;
  /** Flavour of URLs, signals and platform endpoints. */
  flavor: Flavor;
  platform: Platform | null;
  markup: Markup;
  behaviour: Behaviour | null;
  priceStyle: PriceStyle;
  productCount: number;
  seed: number;
  product(index: number): SimProduct;
  /** Path of product i (e.g. /products/classic-cotton-tee-42). */
  productPath(index: number): string;
  /** Absolute https URL of product i. */
  productUrl(index: number): string;
  /** Non-product pages (home, category, blog post, search results, cart) as absolute URLs. */
  nonProductUrls: Record<'home' | 'category' | 'blog' | 'search' | 'cart', string>;
}

export type Flavor =
  | 'shopify'
  | 'woocommerce'
  | 'bigcommerce'
  | 'magento'
  | 'sfcc'
  | 'wix'
  | 'squarespace'
  | 'prestashop'
  | 'generic';

export interface SimVariant {
  id: string;
  sku: string;
  title: string;
  /** Values in the order of product.options. */
  optionValues: string[];
  price: number;
  compareAt: number | null;
  available: boolean;
  image: string;
}

export interface SimReview {
  author: string;
  rating: number;
  title: string;
  body: string;
  date: string;
}

export interface SimProduct {
  index: number;
  id: string;
  handle: string;
  title: string;
  brand: string;
  sku: string;
  productType: string;
  tags: string[];
  description: string;
  descriptionHtml: string;
  /** Shown (current) price: the lowest variant price. */
  price: number;
  compareAt: number | null;
  currency: string;
  available: boolean;
  options: Array<{ name: string; values: string[] }>;
  variants: SimVariant[];
  images: Array<{ url: string; alt: string; width: number; height: number }>;
  reviews: SimReview[];
  averageRating: number | null;
  faqs: Array<{ question: string; answer: string }>;
  url: string;
  /** Only on the stale-jsonld store: the out-of-date price its JSON-LD still carries. */
  staleJsonLdPrice?: number;
}

/** mulberry32 over a 32-bit hash of the parts: fast, seedable, good enough for fixtures. */
export function rng(...parts: Array<string | number>): () => number {
  let h = 2166136261;
  for (const ch of parts.join('|')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];

const CATEGORIES = [
  { type: 'T-Shirts', nouns: ['Tee', 'T-Shirt', 'Crew Tee'], options: ['Size', 'Color'], base: [15, 45] },
  { type: 'Hoodies', nouns: ['Hoodie', 'Zip Hoodie'], options: ['Size', 'Color'], base: [40, 90] },
  { type: 'Sneakers', nouns: ['Sneaker', 'Runner', 'Trainer'], options: ['Size'], base: [60, 180] },
  { type: 'Mugs', nouns: ['Mug', 'Travel Mug'], options: ['Color'], base: [9, 30] },
  { type: 'Headphones', nouns: ['Headphones', 'Earbuds'], options: [], base: [30, 350] },
  { type: 'Lamps', nouns: ['Desk Lamp', 'Floor Lamp'], options: [], base: [25, 220] },
] as const;
const ADJECTIVES = ['Classic', 'Everyday', 'Urban', 'Vintage', 'Essential', 'Premium', 'Coastal', 'Alpine'];
const MATERIALS = ['Cotton', 'Linen', 'Wool', 'Canvas', 'Ceramic', 'Walnut', 'Recycled', 'Organic'];
const BRANDS = ['Northwind', 'Acme Goods', 'Bluefin', 'Oak & Ash', 'Kestrel', 'Lumen'];
const COLORS = ['Black', 'White', 'Navy', 'Red', 'Olive', 'Sand'];
const SIZES_APPAREL = ['S', 'M', 'L', 'XL'];
const SIZES_SHOES = ['40', '41', '42', '43', '44'];
const AUTHORS = ['Anna K.', 'Ben T.', 'Chloé M.', 'Dmitri P.', 'Eve S.'];

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const roundPrice = (value: number) => Math.round(value * 100) / 100;

export function generateProduct(
  store: Pick<StoreModel, 'host' | 'seed' | 'priceStyle' | 'behaviour'>,
  index: number,
  url: string,
): SimProduct {
  const random = rng(store.seed, store.host, index);
  const category = pick(random, CATEGORIES);
  const title = `${pick(random, ADJECTIVES)} ${pick(random, MATERIALS)} ${pick(random, category.nouns)}`;
  const handle = `${slug(title)}-${index}`;
  const brand = pick(random, BRANDS);
  const sku = `${slug(brand).slice(0, 3).toUpperCase()}-${String(index).padStart(6, '0')}`;
  const id = String(7_000_000_000 + index * 7);
  const [low, high] = category.base;
  const basePrice = roundPrice(
    Math.floor((low + random() * (high - low)) * store.priceStyle.scale) + (random() < 0.5 ? 0.99 : 0.95),
  );
  const onSale = random() < 0.3;
  const baseCompareAt = onSale ? roundPrice(Math.ceil(basePrice * 1.25) + 0.99) : null;

  const options = category.options.map((name) => {
    if (name === 'Color') {
      const start = Math.floor(random() * COLORS.length);
      return {
        name,
        values: [0, 1, 2].map((k) => COLORS[(start + k) % COLORS.length]).slice(0, 2 + Math.floor(random() * 2)),
      };
    }
    const sizes = category.type === 'Sneakers' ? SIZES_SHOES : SIZES_APPAREL;
    return { name, values: sizes.slice(0, 3 + Math.floor(random() * 2)) };
  });
  const images = [1, 2, 3].slice(0, 2 + Math.floor(random() * 2)).map((n) => ({
    url: `https://${store.host}/cdn/images/${handle}-${n}.jpg`,
    alt: `${title} view ${n}`,
    width: 1200,
    height: 1200,
  }));

  const combos: string[][] = options.reduce<string[][]>(
    (acc, option) => acc.flatMap((prefix) => option.values.map((value) => [...prefix, value])),
    [[]],
  );
  const variants: SimVariant[] = combos.map((values, k) => {
    // Bigger sizes cost a little more, so variant prices are not all equal.
    const surcharge = values.includes('XL') || values.includes('44') ? roundPrice(2 * store.priceStyle.scale) : 0;
    return {
      id: String(40_000_000_000 + index * 100 + k),
      sku: combos.length === 1 ? sku : `${sku}-${values.map((v) => slug(v).toUpperCase()).join('-')}`,
      title: values.length ? values.join(' / ') : 'Default Title',
      optionValues: values,
      price: roundPrice(basePrice + surcharge),
      compareAt: baseCompareAt === null ? null : roundPrice(baseCompareAt + surcharge),
      available: random() < 0.8,
      image: images[k % images.length].url,
    };
  });
  // Some products are entirely sold out.
  if (random() < 0.1) for (const variant of variants) variant.available = false;

  const reviewCount = Math.floor(random() * 4);
  const reviews: SimReview[] = Array.from({ length: reviewCount }, (_, k) => ({
    author: pick(random, AUTHORS),
    rating: 3 + Math.floor(random() * 3),
    title: pick(random, ['Love it', 'Good value', 'As described', 'Would buy again']),
    body: `Review ${k + 1} of the ${title}: ${pick(random, ['fits well', 'great quality', 'arrived quickly', 'colour as pictured'])}.`,
    date: `2024-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}`,
  }));
  const averageRating = reviews.length
    ? roundPrice(reviews.reduce((sum, r) => sum + r.rating, 0) / reviews.length)
    : null;
  const material = title.split(' ')[1];
  const description = `The ${title} by ${brand} is made from ${material.toLowerCase()} for everyday use. Designed to last, easy to care for.`;
  const features = ['Durable build', `${material} construction`, 'Free returns within 30 days'];
  const descriptionHtml = `<p>${description}</p><ul>${features.map((f) => `<li>${f}</li>`).join('')}</ul>`;
  const faqs =
    random() < 0.5
      ? [
          { question: `How do I care for the ${title}?`, answer: 'Wipe or wash gently; do not tumble dry.' },
          { question: 'What is the return policy?', answer: 'Returns are free within 30 days.' },
        ]
      : [];

  const price = Math.min(...variants.map((v) => v.price));
  const cheapest = variants.find((v) => v.price === price)!;
  const product: SimProduct = {
    index,
    id,
    handle,
    title,
    brand,
    sku,
    productType: category.type,
    tags: [slug(category.type), slug(material), onSale ? 'sale' : 'regular'],
    description,
    descriptionHtml,
    price,
    compareAt: cheapest.compareAt,
    currency: store.priceStyle.currency,
    available: variants.some((v) => v.available),
    options,
    variants,
    images,
    reviews,
    averageRating,
    faqs,
    url,
  };
  if (store.behaviour === 'stale-jsonld') {
    // The page shows a sale price; the markup still carries last month's regular price.
    product.staleJsonLdPrice = roundPrice(price + Math.ceil(price * 0.2));
    product.compareAt = product.staleJsonLdPrice;
    for (const variant of variants) variant.compareAt = roundPrice(variant.price + Math.ceil(price * 0.2));
  }
  return product;
}

const usd: PriceStyle = {
  currency: 'USD',
  format: (n) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
  scale: 1,
  language: 'en',
};
const gbp: PriceStyle = {
  currency: 'GBP',
  format: (n) => `£${n.toLocaleString('en-GB', { minimumFractionDigits: 2 })}`,
  scale: 1,
  language: 'en',
};
const eur: PriceStyle = {
  currency: 'EUR',
  // "1.299,99 €" with a no-break space, as German shops print it.
  format: (n) => `${n.toLocaleString('de-DE', { minimumFractionDigits: 2 })}\u00a0€`,
  scale: 20,
  language: 'de',
};
const chf: PriceStyle = {
  currency: 'CHF',
  // "CHF 1'049,95": apostrophe thousands, comma decimals.
  format: (n) => {
    const [whole, cents] = n.toFixed(2).split('.');
    return `CHF ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, "'")},${cents}`;
  },
  scale: 15,
  language: 'de',
};

export const PRICE_STYLES = { usd, gbp, eur, chf };

export interface StoreSpec {
  host: string;
  name: string;
  flavor: Flavor;
  markup: Markup;
  behaviour?: Behaviour;
  priceStyle?: PriceStyle;
}

const PLATFORM_OF: Record<Flavor, Platform | null> = {
  shopify: 'shopify',
  woocommerce: 'woocommerce',
  bigcommerce: 'bigcommerce',
  magento: 'magento',
  sfcc: 'salesforce_commerce_cloud',
  wix: 'wix',
  squarespace: 'squarespace',
  prestashop: 'prestashop',
  generic: null,
};

/** The simulator's stores, data only. */
export const STORE_SPECS: StoreSpec[] = [
  { host: 'shopify-apparel.test', name: 'Shopify Apparel', flavor: 'shopify', markup: 'jsonld' },
  { host: 'woo-home.test', name: 'Woo Home Goods', flavor: 'woocommerce', markup: 'jsonld', priceStyle: gbp },
  { host: 'bigcommerce-gear.test', name: 'BigCommerce Gear', flavor: 'bigcommerce', markup: 'jsonld' },
  { host: 'magento-outfitters.test', name: 'Magento Outfitters', flavor: 'magento', markup: 'jsonld' },
  { host: 'sfcc-fashion.test', name: 'SFCC Fashion', flavor: 'sfcc', markup: 'jsonld' },
  { host: 'wix-crafts.test', name: 'Wix Crafts', flavor: 'wix', markup: 'jsonld' },
  { host: 'squarespace-studio.test', name: 'Squarespace Studio', flavor: 'squarespace', markup: 'jsonld' },
  {
    host: 'prestashop-boutique.test',
    name: 'PrestaShop Boutique',
    flavor: 'prestashop',
    markup: 'jsonld',
    priceStyle: eur,
  },
  { host: 'jsonld-shop.test', name: 'JSON-LD Shop', flavor: 'generic', markup: 'jsonld' },
  { host: 'productgroup-shop.test', name: 'ProductGroup Shop', flavor: 'generic', markup: 'productgroup' },
  { host: 'microdata-shop.test', name: 'Microdata Shop', flavor: 'generic', markup: 'microdata' },
  { host: 'opengraph-shop.test', name: 'OpenGraph Shop', flavor: 'generic', markup: 'opengraph' },
  { host: 'dom-shop.test', name: 'Plain DOM Shop', flavor: 'generic', markup: 'dom' },
  { host: 'euro-shop.test', name: 'Euro Shop', flavor: 'generic', markup: 'jsonld', priceStyle: eur },
  { host: 'swiss-shop.test', name: 'Swiss Shop', flavor: 'generic', markup: 'jsonld', priceStyle: chf },
  {
    host: 'stale-price.test',
    name: 'Stale Price Shop',
    flavor: 'generic',
    markup: 'jsonld',
    behaviour: 'stale-jsonld',
  },
  { host: 'malformed-shop.test', name: 'Malformed Shop', flavor: 'generic', markup: 'malformed-jsonld' },
  {
    host: 'robots-blocked.test',
    name: 'Robots Blocked',
    flavor: 'generic',
    markup: 'jsonld',
    behaviour: 'robots-blocked',
  },
  { host: 'bot-wall.test', name: 'Bot Wall', flavor: 'generic', markup: 'jsonld', behaviour: 'bot-wall' },
  { host: 'rate-limited.test', name: 'Rate Limited', flavor: 'generic', markup: 'jsonld', behaviour: 'rate-limited' },
  { host: 'slow.test', name: 'Slow Shop', flavor: 'generic', markup: 'jsonld', behaviour: 'slow' },
  { host: 'flaky.test', name: 'Flaky Shop', flavor: 'generic', markup: 'jsonld', behaviour: 'flaky' },
  {
    host: 'redirect-chain.test',
    name: 'Redirect Chain',
    flavor: 'generic',
    markup: 'jsonld',
    behaviour: 'redirect-chain',
  },
  {
    host: 'redirect-private.test',
    name: 'Redirect Private',
    flavor: 'generic',
    markup: 'jsonld',
    behaviour: 'redirect-private',
  },
  { host: 'non-html.test', name: 'PDF Shop', flavor: 'generic', markup: 'jsonld', behaviour: 'non-html' },
  { host: 'huge-page.test', name: 'Huge Page', flavor: 'generic', markup: 'jsonld', behaviour: 'huge' },
];

/** URL layout per flavour: product, category, blog, search and cart paths. */
export const PATHS: Record<
  Flavor,
  {
    product: (p: { handle: string; sku: string; index: number }) => string;
    category: string;
    blog: string;
    search: string;
    cart: string;
  }
> = {
  shopify: {
    product: (p) => `/products/${p.handle}`,
    category: '/collections/all',
    blog: '/blogs/news/summer-lookbook',
    search: '/search?q=tee',
    cart: '/cart',
  },
  woocommerce: {
    product: (p) => `/product/${p.handle}/`,
    category: '/product-category/home/',
    blog: '/2024/05/summer-lookbook/',
    search: '/?s=mug',
    cart: '/cart/',
  },
  bigcommerce: {
    product: (p) => `/${p.handle}/`,
    category: '/shop-all/',
    blog: '/blog/summer-lookbook/',
    search: '/search.php?search_query=tee',
    cart: '/cart.php',
  },
  magento: {
    product: (p) => `/${p.handle}.html`,
    category: '/women/tops.html',
    blog: '/blog/post/summer-lookbook',
    search: '/catalogsearch/result/?q=tee',
    cart: '/checkout/cart/',
  },
  sfcc: {
    product: (p) => `/${p.handle}/${p.sku}.html`,
    category: '/womens/clothing/',
    blog: '/stories/summer-lookbook.html',
    search: '/search?q=tee',
    cart: '/cart',
  },
  wix: {
    product: (p) => `/product-page/${p.handle}`,
    category: '/shop',
    blog: '/post/summer-lookbook',
    search: '/search?q=mug',
    cart: '/cart-page',
  },
  squarespace: {
    product: (p) => `/shop/p/${p.handle}`,
    category: '/shop',
    blog: '/journal/summer-lookbook',
    search: '/search?q=mug',
    cart: '/cart',
  },
  prestashop: {
    product: (p) => `/${p.index}-${p.handle}.html`,
    category: '/3-clothes',
    blog: '/blog/summer-lookbook',
    search: '/search?controller=search&s=tee',
    cart: '/cart?action=show',
  },
  generic: {
    product: (p) => `/products/${p.handle}`,
    category: '/category/all',
    blog: '/blog/summer-lookbook',
    search: '/search?q=tee',
    cart: '/cart',
  },
};

export function buildStore(spec: StoreSpec, productCount: number, seed: number): StoreModel {
  const priceStyle = spec.priceStyle ?? usd;
  const base = `https://${spec.host}`;
  const paths = PATHS[spec.flavor];
  // Product i's handle/sku are cheap to recompute; cache a few full products for hot pages.
  const cache = new Map<number, SimProduct>();
  const store: StoreModel = {
    host: spec.host,
    name: spec.name,
    flavor: spec.flavor,
    platform: PLATFORM_OF[spec.flavor],
    markup: spec.markup,
    behaviour: spec.behaviour ?? null,
    priceStyle,
    productCount,
    seed,
    product(index) {
      if (!Number.isInteger(index) || index < 0 || index >= productCount)
        throw new RangeError(`no product ${index} in ${spec.host}`);
      let product = cache.get(index);
      if (!product) {
        product = generateProduct(store, index, '');
        product.url = `${base}${paths.product(product)}`;
        if (cache.size > 200) cache.delete(cache.keys().next().value as number);
        cache.set(index, product);
      }
      return product;
    },
    productPath: (index) => paths.product(store.product(index)),
    productUrl: (index) => `${base}${paths.product(store.product(index))}`,
    nonProductUrls: {
      home: `${base}/`,
      category: `${base}${paths.category}`,
      blog: `${base}${paths.blog}`,
      search: `${base}${paths.search}`,
      cart: `${base}${paths.cart}`,
    },
  };
  return store;
}

/** Product URLs of a store, paged so huge stores never materialise a full list. */
export function listProductUrls(store: StoreModel, options: { offset?: number; limit?: number } = {}): string[] {
  const offset = Math.max(0, options.offset ?? 0);
  const end = Math.min(store.productCount, offset + (options.limit ?? store.productCount));
  const urls: string[] = [];
  for (let i = offset; i < end; i++) urls.push(store.productUrl(i));
  return urls;
}

/** Flaky host: how many 503s a URL path answers before it succeeds (0..2, fixed per path). */
export function flakyFailuresFor(pathAndQuery: string): number {
  return Math.floor(rng('flaky', pathAndQuery)() * 3);
}
