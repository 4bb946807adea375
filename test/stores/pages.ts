// Templates of the store simulator: one product page template whose structured data depends on
// the store's markup mode, platform signals per flavour, listing/blog/cart pages, platform JSON
// endpoints (Shopify Ajax/JSON, WooCommerce Store API) and sitemaps. All derived from catalog.ts.
import type { Flavor, SimProduct, StoreModel } from './catalog';

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** JSON for a <script> block: "</" cannot close the element early. */
const scriptJson = (value: unknown) => JSON.stringify(value, null, 1).replace(/<\//g, '<\\/');
const cents = (amount: number) => Math.round(amount * 100);
const availabilityUrl = (available: boolean) => `https://schema.org/${available ? 'InStock' : 'OutOfStock'}`;

export interface Signals {
  head: string;
  bodyClass: string;
  bodyEnd: string;
}

/** The platform fingerprints detectors look for (see notes/peers.md). */
export function signals(store: StoreModel): Signals {
  const flavor: Flavor = store.flavor;
  switch (flavor) {
    case 'shopify':
      return {
        head: `<link rel="preconnect" href="https://cdn.shopify.com"><script src="https://cdn.shopify.com/s/files/1/0001/theme.js" defer></script>
<script>window.Shopify = window.Shopify || {}; Shopify.shop = "${store.host}"; Shopify.currency = {"active":"${store.priceStyle.currency}","rate":"1.0"};</script>`,
        bodyClass: 'template-product',
        bodyEnd: '<div id="shopify-section-footer" class="shopify-section"></div>',
      };
    case 'woocommerce':
      return {
        head: `<link rel="stylesheet" href="https://${store.host}/wp-content/plugins/woocommerce/assets/css/woocommerce.css"><link rel="https://api.w.org/" href="https://${store.host}/wp-json/"><meta name="generator" content="WooCommerce 8.9.1">`,
        bodyClass: 'woocommerce woocommerce-page single-product',
        bodyEnd: '',
      };
    case 'bigcommerce':
      return {
        head: `<link rel="dns-prefetch" href="https://cdn11.bigcommerce.com"><script>var BCData = {"csrf_token":"x","product_attributes":{"sku":null}};</script>`,
        bodyClass: 'page-type-product',
        bodyEnd: '<script src="https://cdn11.bigcommerce.com/s-abc123/stencil/theme.js"></script>',
      };
    case 'magento':
      return {
        head: `<link rel="stylesheet" href="https://${store.host}/static/version1700000000/frontend/Magento/luma/en_US/css/styles-m.css"><script type="text/x-magento-init">{"*":{"Magento_Ui/js/core/app":{}}}</script>`,
        bodyClass: 'catalog-product-view page-layout-1column',
        bodyEnd: '<script>require(["jquery","mage/cookies"], function(){ window.Mage && Mage.Cookies; });</script>',
      };
    case 'sfcc':
      return {
        head: `<link rel="stylesheet" href="https://${store.host}/on/demandware.static/Sites-Fashion-Site/-/en_US/v1700000000/css/global.css">`,
        bodyClass: 'product-detail',
        bodyEnd: `<form action="/on/demandware.store/Sites-Fashion-Site/en_US/Cart-AddProduct" method="post"></form>`,
      };
    case 'wix':
      return {
        head: `<meta name="generator" content="Wix.com Website Builder"><link rel="preconnect" href="https://static.wixstatic.com">`,
        bodyClass: 'wix-product-page',
        bodyEnd: '<script src="https://static.parastorage.com/services/wix-thunderbolt/dist/main.js"></script>',
      };
    case 'squarespace':
      return {
        head: `<link rel="stylesheet" href="https://static1.squarespace.com/static/versioned-site-css/site.css"><script>Static = window.Static || {}; Static.SQUARESPACE_CONTEXT = {"website":{"id":"abc"}};</script>`,
        bodyClass: 'view-item collection-type-products',
        bodyEnd: '<!-- This is Squarespace. -->',
      };
    case 'prestashop':
      return {
        head: `<script>var prestashop = {"currency":{"iso_code":"${store.priceStyle.currency}"},"page":{"page_name":"product"}};</script><link rel="stylesheet" href="https://${store.host}/themes/classic/assets/css/theme.css">`,
        bodyClass: 'page-product',
        bodyEnd: `<script src="https://${store.host}/modules/ps_shoppingcart/ps_shoppingcart.js"></script>`,
      };
    default:
      return { head: '', bodyClass: 'product', bodyEnd: '' };
  }
}

function layout(store: StoreModel, title: string, head: string, body: string, bodyClass = ''): string {
  const s = signals(store);
  return `<!DOCTYPE html>
<html lang="${store.priceStyle.language}">
<head>
<meta charset="utf-8">
<title>${esc(title)} | ${esc(store.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${s.head}
${head}
</head>
<body class="${bodyClass || s.bodyClass}">
<header><a href="/">${esc(store.name)}</a> <nav><a href="${store.nonProductUrls.category.replace(/^https:\/\/[^/]+/, '')}">Shop</a> <a href="/cart">Cart</a></nav></header>
<main>
${body}
</main>
<footer>&copy; ${esc(store.name)}</footer>
${s.bodyEnd}
</body>
</html>`;
}

function offerJson(
  store: StoreModel,
  _product: SimProduct,
  price: number,
  available: boolean,
  sku: string,
  url: string,
) {
  return {
    '@type': 'Offer',
    price: price.toFixed(2),
    priceCurrency: store.priceStyle.currency,
    availability: availabilityUrl(available),
    sku,
    url,
  };
}

function productJsonLd(store: StoreModel, product: SimProduct): Record<string, unknown> {
  const stale = product.staleJsonLdPrice;
  const ld: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: product.title,
    description: product.description,
    sku: product.sku,
    mpn: `MPN${product.index}`,
    brand: { '@type': 'Brand', name: product.brand },
    image: product.images.map((i) => i.url),
    url: product.url,
    offers:
      product.variants.length === 1
        ? offerJson(store, product, stale ?? product.price, product.available, product.sku, product.url)
        : product.variants.map((v) =>
            offerJson(
              store,
              product,
              stale ? v.compareAt! : v.price,
              v.available,
              v.sku,
              `${product.url}?variant=${v.id}`,
            ),
          ),
  };
  if (product.reviews.length) {
    ld.aggregateRating = {
      '@type': 'AggregateRating',
      ratingValue: product.averageRating,
      reviewCount: product.reviews.length,
      bestRating: 5,
    };
    ld.review = product.reviews.map((r) => ({
      '@type': 'Review',
      author: { '@type': 'Person', name: r.author },
      name: r.title,
      reviewBody: r.body,
      datePublished: r.date,
      reviewRating: { '@type': 'Rating', ratingValue: r.rating, bestRating: 5 },
    }));
  }
  return ld;
}

function productGroupJsonLd(store: StoreModel, product: SimProduct): Record<string, unknown> {
  const property = (name: string) => (name === 'Size' ? 'size' : name === 'Color' ? 'color' : name.toLowerCase());
  return {
    '@context': 'https://schema.org',
    '@type': 'ProductGroup',
    name: product.title,
    description: product.description,
    productGroupID: product.sku,
    brand: { '@type': 'Brand', name: product.brand },
    url: product.url,
    variesBy: product.options.map((o) => `https://schema.org/${property(o.name)}`),
    hasVariant: product.variants.map((v) => ({
      '@type': 'Product',
      sku: v.sku,
      name: `${product.title} - ${v.title}`,
      image: v.image,
      ...Object.fromEntries(product.options.map((o, k) => [property(o.name), v.optionValues[k]])),
      offers: offerJson(store, product, v.price, v.available, v.sku, `${product.url}?variant=${v.id}`),
    })),
  };
}

function faqJsonLd(product: SimProduct) {
  return {
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: product.faqs.map((f) => ({
      '@type': 'Question',
      name: f.question,
      acceptedAnswer: { '@type': 'Answer', text: f.answer },
    })),
  };
}

/** The JSON-LD block with JS comments and trailing commas that strict JSON.parse rejects. */
function malformedJsonLd(store: StoreModel, product: SimProduct): string {
  return `{
  // generated by a theme snippet
  "@context": "https://schema.org",
  "@type": "Product",
  "name": ${JSON.stringify(product.title)},
  "sku": ${JSON.stringify(product.sku)},
  "brand": { "@type": "Brand", "name": ${JSON.stringify(product.brand)}, },
  "image": [${product.images.map((i) => JSON.stringify(i.url)).join(', ')},],
  /* price block */
  "offers": {
    "@type": "Offer",
    "price": "${product.price.toFixed(2)}",
    "priceCurrency": "${store.priceStyle.currency}",
    "availability": "${availabilityUrl(product.available)}",
  },
}`;
}

function microdataBlock(store: StoreModel, product: SimProduct): string {
  return `<div itemscope itemtype="https://schema.org/Product">
  <meta itemprop="name" content="${esc(product.title)}">
  <meta itemprop="sku" content="${esc(product.sku)}">
  <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><meta itemprop="name" content="${esc(product.brand)}"></div>
  ${product.images.map((i) => `<link itemprop="image" href="${esc(i.url)}">`).join('')}
  <meta itemprop="description" content="${esc(product.description)}">
  <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
    <meta itemprop="price" content="${product.price.toFixed(2)}">
    <meta itemprop="priceCurrency" content="${store.priceStyle.currency}">
    <link itemprop="availability" href="${availabilityUrl(product.available)}">
  </div>
</div>`;
}

function openGraphMeta(store: StoreModel, product: SimProduct): string {
  return [
    ['og:type', 'product'],
    ['og:title', product.title],
    ['og:description', product.description],
    ['og:url', product.url],
    ['og:image', product.images[0].url],
    ['og:site_name', store.name],
    ['product:price:amount', product.price.toFixed(2)],
    ['product:price:currency', store.priceStyle.currency],
    ['product:availability', product.available ? 'in stock' : 'out of stock'],
    ['product:brand', product.brand],
  ]
    .map(([property, content]) => `<meta property="${property}" content="${esc(content)}">`)
    .join('\n');
}

export function renderProductPage(store: StoreModel, product: SimProduct, related: SimProduct[]): string {
  const fmt = store.priceStyle.format;
  const head: string[] = [
    `<link rel="canonical" href="${esc(product.url)}">`,
    `<meta name="description" content="${esc(product.description)}">`,
  ];
  const blocks: string[] = [];
  const ldScript = (value: unknown) => `<script type="application/ld+json">${scriptJson(value)}</script>`;
  switch (store.markup) {
    case 'jsonld':
      head.push(ldScript(productJsonLd(store, product)));
      break;
    case 'productgroup':
      head.push(ldScript(productGroupJsonLd(store, product)));
      break;
    case 'malformed-jsonld':
      head.push(`<script type="application/ld+json">${malformedJsonLd(store, product)}</script>`);
      break;
    case 'microdata':
      blocks.push(microdataBlock(store, product));
      break;
    case 'opengraph':
      head.push(openGraphMeta(store, product));
      break;
    case 'dom':
      break;
  }
  if (store.markup !== 'dom' && store.markup !== 'opengraph' && store.markup !== 'microdata' && product.faqs.length) {
    head.push(ldScript(faqJsonLd(product)));
  }

  const options = product.options
    .map(
      (o, k) =>
        `<label>${esc(o.name)} <select name="option${k + 1}" data-option-name="${esc(o.name)}">${o.values
          .map((v) => `<option value="${esc(v)}">${esc(v)}</option>`)
          .join('')}</select></label>`,
    )
    .join('\n');
  const variantJson = product.variants.map((v) => ({
    id: v.id,
    sku: v.sku,
    title: v.title,
    options: v.optionValues,
    price: v.price,
    available: v.available,
  }));
  const compare = product.compareAt !== null ? `<s class="price-compare">${esc(fmt(product.compareAt))}</s>` : '';
  const reviews = product.reviews.length
    ? `<section class="reviews"><h2>Reviews (${product.reviews.length})</h2>${product.reviews
        .map(
          (r) =>
            `<article class="review"><strong>${esc(r.title)}</strong> <span class="rating">${r.rating}/5</span> <span class="author">${esc(r.author)}</span> <time>${r.date}</time><p>${esc(r.body)}</p></article>`,
        )
        .join('')}</section>`
    : '';
  const faqs = product.faqs.length
    ? `<section class="faq"><h2>FAQ</h2>${product.faqs.map((f) => `<details><summary>${esc(f.question)}</summary><p>${esc(f.answer)}</p></details>`).join('')}</section>`
    : '';
  const relatedBlock = related.length
    ? `<aside class="related"><h2>You may also like</h2>${related
        .map(
          (r) =>
            `<div class="related-item"><a href="${esc(r.url)}">${esc(r.title)}</a> <span class="price">${esc(fmt(r.price))}</span></div>`,
        )
        .join('')}</aside>`
    : '';
  const body = `${blocks.join('\n')}
<div class="product" data-product-id="${product.id}">
  <div class="gallery">${product.images.map((i) => `<img src="${esc(i.url)}" alt="${esc(i.alt)}" width="${i.width}" height="${i.height}">`).join('')}</div>
  <h1 class="product-title">${esc(product.title)}</h1>
  <div class="brand">${esc(product.brand)}</div>
  <div class="sku">SKU: <span>${esc(product.sku)}</span></div>
  <div class="price-box"><span class="price price-current">${esc(fmt(product.price))}</span> ${compare}</div>
  <div class="availability">${product.available ? 'In stock' : 'Sold out'}</div>
  <form class="product-form" action="/cart/add" method="post">
    ${options}
    <button type="submit" name="add" ${product.available ? '' : 'disabled'}>Add to cart</button>
  </form>
  <div class="description">${product.descriptionHtml}</div>
  <script type="application/json" id="product-variants">${scriptJson(variantJson)}</script>
</div>
${reviews}
${faqs}
${relatedBlock}`;
  return layout(store, product.title, head.join('\n'), body);
}

export function renderListingPage(
  store: StoreModel,
  heading: string,
  products: SimProduct[],
  kind: 'home' | 'category' | 'search',
): string {
  const fmt = store.priceStyle.format;
  const head =
    kind === 'category'
      ? `<script type="application/ld+json">${scriptJson({
          '@context': 'https://schema.org',
          '@type': 'ItemList',
          itemListElement: products.map((p, i) => ({ '@type': 'ListItem', position: i + 1, url: p.url })),
        })}</script>`
      : kind === 'home'
        ? `<script type="application/ld+json">${scriptJson({ '@context': 'https://schema.org', '@type': 'WebSite', name: store.name, url: `https://${store.host}/` })}</script>`
        : '';
  const grid = products
    .map(
      (p) =>
        `<li class="product-card"><a href="${esc(p.url)}"><img src="${esc(p.images[0].url)}" alt=""><span class="title">${esc(p.title)}</span></a> <span class="price">${esc(fmt(p.price))}</span></li>`,
    )
    .join('\n');
  return layout(
    store,
    heading,
    head,
    `<h1>${esc(heading)}</h1>\n<ul class="product-grid">${grid}</ul>`,
    `page-${kind}`,
  );
}

export function renderBlogPost(store: StoreModel, featured: SimProduct): string {
  const head = `<meta property="og:type" content="article"><script type="application/ld+json">${scriptJson({
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: 'Summer lookbook',
    datePublished: '2024-05-01',
    author: { '@type': 'Person', name: 'Store Team' },
  })}</script>`;
  const body = `<article><h1>Summer lookbook</h1><p>Our favourite pieces this season, starting with the <a href="${esc(featured.url)}">${esc(featured.title)}</a>.</p><p>Layer light fabrics and keep it simple.</p></article>`;
  return layout(store, 'Summer lookbook', head, body, 'page-blog');
}

export function renderCart(store: StoreModel): string {
  return layout(
    store,
    'Your cart',
    '<meta name="robots" content="noindex">',
    '<h1>Your cart</h1><p>Your cart is empty.</p><a href="/">Continue shopping</a>',
    'page-cart',
  );
}

export function renderNotFound(store: StoreModel): string {
  return layout(
    store,
    'Page not found',
    '',
    '<h1>404</h1><p>The page you were looking for does not exist.</p>',
    'page-404',
  );
}

export function botWallPage(): string {
  return `<!DOCTYPE html><html><head><title>Access denied</title></head><body>
<h1>Are you a robot?</h1><p>Please complete the security check to continue.</p>
<form id="captcha-form" action="/verify" method="post"><div class="g-recaptcha" data-sitekey="x"></div><input type="hidden" name="captcha" value=""><button>Verify</button></form>
</body></html>`;
}

// --- Shopify endpoints ---

export function shopifyAjaxProduct(product: SimProduct) {
  return {
    id: Number(product.id),
    title: product.title,
    handle: product.handle,
    description: product.descriptionHtml,
    vendor: product.brand,
    type: product.productType,
    tags: product.tags,
    price: cents(product.price),
    price_min: cents(product.price),
    price_max: cents(Math.max(...product.variants.map((v) => v.price))),
    compare_at_price: product.compareAt === null ? null : cents(product.compareAt),
    available: product.available,
    options: product.options.map((o, k) => ({ name: o.name, position: k + 1, values: o.values })),
    variants: product.variants.map((v) => ({
      id: Number(v.id),
      title: v.title,
      option1: v.optionValues[0] ?? (product.options.length ? null : 'Default Title'),
      option2: v.optionValues[1] ?? null,
      option3: v.optionValues[2] ?? null,
      sku: v.sku,
      price: cents(v.price),
      compare_at_price: v.compareAt === null ? null : cents(v.compareAt),
      available: v.available,
      featured_image: { src: v.image, alt: null },
    })),
    images: product.images.map((i) => i.url),
    featured_image: product.images[0].url,
    url: `/products/${product.handle}`,
  };
}

export function shopifyJsonProduct(product: SimProduct) {
  return {
    id: Number(product.id),
    title: product.title,
    handle: product.handle,
    body_html: product.descriptionHtml,
    vendor: product.brand,
    product_type: product.productType,
    tags: product.tags.join(', '),
    created_at: '2024-01-01T00:00:00-05:00',
    updated_at: '2024-05-01T00:00:00-05:00',
    options: product.options.map((o, k) => ({ name: o.name, position: k + 1, values: o.values })),
    variants: product.variants.map((v, k) => ({
      id: Number(v.id),
      product_id: Number(product.id),
      title: v.title,
      price: v.price.toFixed(2),
      compare_at_price: v.compareAt === null ? null : v.compareAt.toFixed(2),
      sku: v.sku,
      position: k + 1,
      option1: v.optionValues[0] ?? (product.options.length ? null : 'Default Title'),
      option2: v.optionValues[1] ?? null,
      option3: v.optionValues[2] ?? null,
      available: v.available,
      image_id: Number(product.id) * 10 + (product.images.findIndex((i) => i.url === v.image) + 1),
    })),
    images: product.images.map((i, k) => ({
      id: Number(product.id) * 10 + k + 1,
      position: k + 1,
      src: i.url,
      alt: i.alt,
      width: i.width,
      height: i.height,
      variant_ids: product.variants.filter((v) => v.image === i.url).map((v) => Number(v.id)),
    })),
  };
}

// --- WooCommerce Store API ---

export function wooProduct(
  store: StoreModel,
  product: SimProduct,
  categories?: Array<{ id: number; name: string; slug: string }>,
) {
  const minor = (n: number) => String(cents(n));
  const prices = (price: number, compareAt: number | null) => ({
    price: minor(price),
    regular_price: minor(compareAt ?? price),
    sale_price: minor(price),
    currency_code: store.priceStyle.currency,
    currency_symbol: store.priceStyle.currency === 'GBP' ? '£' : '$',
    currency_minor_unit: 2,
    currency_decimal_separator: '.',
    currency_thousand_separator: ',',
    currency_prefix: store.priceStyle.currency === 'GBP' ? '£' : '$',
    currency_suffix: '',
  });
  return {
    id: Number(product.index) + 100,
    name: product.title,
    slug: product.handle,
    permalink: product.url,
    type: product.variants.length > 1 ? 'variable' : 'simple',
    sku: product.sku,
    short_description: `<p>${product.description}</p>`,
    description: product.descriptionHtml,
    on_sale: product.compareAt !== null,
    prices: prices(product.price, product.compareAt),
    average_rating: product.averageRating === null ? '0' : product.averageRating.toFixed(2),
    review_count: product.reviews.length,
    images: product.images.map((i, k) => ({
      id: (product.index + 100) * 10 + k,
      src: i.url,
      thumbnail: i.url,
      alt: i.alt,
      name: `${product.handle}-${k + 1}.jpg`,
    })),
    categories: categories ?? [{ id: 1, name: product.productType, slug: product.productType.toLowerCase() }],
    tags: product.tags.map((t, k) => ({ id: k + 1, name: t, slug: t })),
    brands: [{ id: 1, name: product.brand, slug: product.brand.toLowerCase() }],
    attributes: product.options.map((o, k) => ({
      id: k + 1,
      name: o.name,
      taxonomy: `pa_${o.name.toLowerCase()}`,
      has_variations: true,
      terms: o.values.map((v, j) => ({ id: j + 1, name: v, slug: v.toLowerCase() })),
    })),
    variations:
      product.variants.length > 1
        ? product.variants.map((v) => ({
            id: Number(v.id),
            attributes: product.options.map((o, k) => ({ name: o.name, value: v.optionValues[k].toLowerCase() })),
          }))
        : [],
    is_purchasable: true,
    is_in_stock: product.available,
    add_to_cart: { text: 'Add to basket' },
  };
}

// --- robots.txt and sitemaps ---

export function robotsTxt(store: StoreModel): string {
  if (store.behaviour === 'robots-blocked') return 'User-agent: *\nDisallow: /\n';
  return `# ${store.name}\nUser-agent: *\nDisallow: /cart\nDisallow: /checkout\nDisallow: /private/\n\nSitemap: https://${store.host}/sitemap.xml\n`;
}

export const SITEMAP_PAGE_SIZE = 5000;

export function sitemapIndex(store: StoreModel): string {
  const pages = Math.max(1, Math.ceil(store.productCount / SITEMAP_PAGE_SIZE));
  const entries = Array.from(
    { length: pages },
    (_, k) =>
      `<sitemap><loc>https://${store.host}/sitemap_products_${k + 1}.xml</loc><lastmod>2024-05-01</lastmod></sitemap>`,
  );
  entries.push(`<sitemap><loc>https://${store.host}/sitemap_pages_1.xml</loc></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</sitemapindex>\n`;
}

export function productSitemap(store: StoreModel, page: number): string | null {
  const start = (page - 1) * SITEMAP_PAGE_SIZE;
  if (page < 1 || start >= store.productCount) return null;
  const end = Math.min(store.productCount, start + SITEMAP_PAGE_SIZE);
  const rows: string[] = [];
  for (let i = start; i < end; i++) {
    const product = store.product(i);
    rows.push(
      `<url><loc>${esc(product.url)}</loc><lastmod>2024-05-01</lastmod><changefreq>daily</changefreq><image:image><image:loc>${esc(product.images[0].url)}</image:loc><image:title>${esc(product.title)}</image:title></image:image></url>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n${rows.join('\n')}\n</urlset>\n`;
}

export function pagesSitemap(store: StoreModel): string {
  const urls = [store.nonProductUrls.home, store.nonProductUrls.category, store.nonProductUrls.blog];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `<url><loc>${esc(u)}</loc></url>`).join('\n')}\n</urlset>\n`;
}

/** A minimal valid one-page PDF. */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** 1x1 transparent PNG for image URLs. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
