// Extraction-quality hosts of the store simulator (issue 11): each models one class of page the
// engine got wrong on unseen stores, with ground truth derived from catalog.ts like every store.
// - shopify-json-only.test: Shopify whose Ajax `.js` answers 404, so `.json` (no `available`
//   on variants, as on real stores) is the platform JSON; per-variant availability is in the
//   JSON-LD offers.
// - woo-variable.test: WooCommerce variable products; the Store API lists variation ids only;
//   SKUs are in `data-product_variations` (even products) or JSON-LD ProductGroup/hasVariant (odd).
// - logo-heading.test: the first h1 is the shop's logo (image or text); the product's h1 follows.
// - title-only.test: no heading at all; the title is in <title>/og:title with the shop's name.
// - local-prices.test: no markup; the price is plain text in a local currency and script
//   (full-width digits and separators, Arabic-Indic digits, suffix marks), buy button in the
//   local language. Truth: localPrice(product).
// - price-crowd.test: a "was" price by label only, a per-unit price, an instalment, a coupon price
//   and related products' prices around the real one; JSON-LD carries the old price on sale items
//   and marks the related products up as Products before the page's own.
// - sku-reference.test: where the product's SKU and brand are stated when not in a Product's
//   `sku`/`brand` (truth: product.sku, product.brand), by product.index % 4:
//   0: JSON-LD lists each variant as its own Product of the same name (variant SKUs, no brand);
//      the product reference is shown in an element a data attribute names, the brand as a link
//      to the brand's page beside the heading;
//   1: microdata with `productID` only ("Ref : ...") and a Brand scope on a <meta content>;
//   2: no markup: `data-product-sku` on the buy form (related cards carry theirs too), the brand
//      in a byline "Brand: ...";
//   3: no markup: the SKU only in a details tab below the buy box ("SKU: ..."), a coupon code
//      ("Enter code ...") near the price, the brand in a loose <meta itemprop="brand">.
// - price-markup.test: minified pages (no whitespace between tags); the price and SKU as themes
//   write them, by product.index % 3: 0: superscript cents ("$25<sup>99</sup>") and an "Item #"
//   th/td row, JSON-LD states the price in minor units; 1: the struck-through regular price inside
//   the price box itself, og:price states that regular price, and a dt/dd "SKU" pair; 2: a Shopify
//   `money` span beside a unit price and an empty `data-product-sku` on the value (BigCommerce),
//   no markup. Truth: priceMarkupTruth(product), product.sku.
// - sku-locale.test: where the SKU and currency come from on pages of other languages and
//   setups, by product.index % 6 (truth: skuLocaleTruth(product, url)):
//   0: Russian, no markup, "Артикул: <sku>" in a label/value pair, "3 999 ₽" in plain text, the
//      heading ends in a volume ("…, 1.5 L": no lempira price);
//   1: Japanese, no markup, "品番：<sku>", "¥5,999" in plain text (JPY);
//   2: JSON-LD whose sku is written with its label ("SKU: <sku>"), USD;
//   3: no markup but <span itemprop="sku" content="<sku>"> and og:locale en_AU: "$" is AUD;
//   4: <meta name="sku">, a self hreflang en-NZ alternate and html lang "en": "$" is NZD;
//   5: ProductGroup/hasVariant JSON-LD (productGroupID = product SKU), each variant with its own
//      URL `?sku=<variant sku>`; the page shows the variant its address selects (the first when
//      none), so the page's SKU and price are that variant's.
// - markup-elsewhere.test: markup that is not the page product's, and prices before tax, by
//   product.index % 9 (truth: elsewhereTruth(product)):
//   0: no markup of its own; a recommended product (no word of its name in the page's) marked up
//      as a microdata Product in a block headed "Customers also bought", before the product area;
//      the product's SKU as "SKU: ..." in the product area;
//   1: JSON-LD naming only that recommended product (a widget's markup); "Item # ..." shown;
//   2: JSON-LD of the page product whose sku is a template's placeholder ("{{ product.sku }}",
//      "N/A", or the product's name), the SKU in a <span class="sku">;
//   3: German shop (EUR), no markup: the price before tax ("zzgl. MwSt.") shown before the price
//      shoppers pay ("inkl. MwSt."), "Art.-Nr.: ...";
//   4: no markup; the maker's model number labelled first ("Model #: MX...") and the shop's
//      "SKU: ..." after it;
//   5: JSON-LD Product without a SKU of its own, one Offer per variant (each $5 dearer than the
//      one before, listed dearest first, each with its SKU); the page shows the lowest price: the
//      SKU is the first variant's;
//   6: a theme that lost its itemscope: <meta itemprop=price/priceCurrency> (CAD) loose in the
//      product area, the shown price filled in by a script (empty here); "SKU: ..." shown;
//   7: widgets' h1s before the product's: a cart status message ("Adding to cart...") and a
//      delivery popover's heading; "SKU: ..." shown;
//   8: no markup; the price shown as a range over the sizes ("$X – $Y", Y = X + 10): the price is
//      the lower end, the range kept (truth: range).
// - event-tickets.test: event pages (JSON-LD MusicEvent, no Product), local currency CLP. Even
//   products: the ticket sold on the page (a "$12.990" price and a "Comprar" button): a product
//   page. Odd products: the event only announced (date and place, no price, no buy control): not a
//   product page. Truth: eventTicketTruth(product).
// - one-of-many.test: product pages the rules took for listings or articles (issue 27), no markup,
//   by product.index % 3 (truth: oneOfManyTruth(product)): 0: a classified ad, og:type article, the
//   asking price in plain text under the heading and a "Contact seller" button; 1: a high-value
//   item (price x 1000) whose price is plain text inside a banner-classed block, no buy button;
//   2: a product page with its buy box and a carousel of eight product cards with their prices.
// - title-classes.test: names that are not the product's name beside the one that is (issue 27),
//   by product.index % 7 (truth: titleClassesTruth(product), the brand and the name): 0: og:title
//   is the brand, the name and the price glued ("Acme Wool Scarf $24.99"), no JSON-LD; 1: the h1
//   and the microdata name start with "Details about", og:title is the name; 2: the h1 is the
//   name's last two words (the kind of item, "Travel Mug"), JSON-LD names brand and name; 3:
//   JSON-LD's name is cut with "..." (two words short), the h1 is the whole name; 4: JSON-LD's
//   name ends with a label ("Model:"); 5: the h1 is the category (also a breadcrumb), JSON-LD
//   names brand and name, og:title is the price before the name ("$24.99 · Wool Scarf"); 6:
//   og:title is the shop's slogan ("Home, kitchen, audio & more").
import type { SimProduct, StoreModel, StoreSpec } from './catalog';
import { PRICE_STYLES } from './catalog';
import { shopifyJsonProduct, wooProduct } from './pages';

export interface QualityReply {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string;
}

export const QUALITY_STORE_SPECS: StoreSpec[] = [
  { host: 'shopify-json-only.test', name: 'Json Only Outfitters', flavor: 'shopify', markup: 'jsonld' },
  {
    host: 'woo-variable.test',
    name: 'Variable Woo',
    flavor: 'woocommerce',
    markup: 'jsonld',
    priceStyle: PRICE_STYLES.gbp,
  },
  { host: 'logo-heading.test', name: 'Logo Heading Goods', flavor: 'generic', markup: 'dom' },
  { host: 'title-only.test', name: 'Title Only Supply', flavor: 'generic', markup: 'dom' },
  { host: 'local-prices.test', name: 'Local Prices', flavor: 'generic', markup: 'dom' },
  { host: 'price-crowd.test', name: 'Price Crowd', flavor: 'generic', markup: 'jsonld' },
  { host: 'sku-reference.test', name: 'Reference Goods', flavor: 'generic', markup: 'jsonld' },
  { host: 'price-markup.test', name: 'Markup Mart', flavor: 'generic', markup: 'dom' },
  { host: 'event-tickets.test', name: 'Entradas Ya', flavor: 'generic', markup: 'jsonld' },
  { host: 'sku-locale.test', name: 'Localised References', flavor: 'generic', markup: 'dom' },
  { host: 'markup-elsewhere.test', name: 'Elsewhere Goods', flavor: 'generic', markup: 'dom' },
  { host: 'one-of-many.test', name: 'One Of Many', flavor: 'generic', markup: 'dom' },
  { host: 'title-classes.test', name: 'Title Classes', flavor: 'generic', markup: 'dom' },
];

export const QUALITY_HOSTS: ReadonlySet<string> = new Set(QUALITY_STORE_SPECS.map((s) => s.host));

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const ld = (value: unknown) =>
  `<script type="application/ld+json">${JSON.stringify(value).replace(/<\//g, '<\\/')}</script>`;
const html = (body: string, headers: Record<string, string | string[]> = {}): QualityReply => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
});
const json = (value: unknown, status = 200): QualityReply => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(value),
});
const usd = (n: number) => `$${n.toFixed(2)}`;
const availabilityUrl = (available: boolean) => `https://schema.org/${available ? 'InStock' : 'OutOfStock'}`;

function page(lang: string, title: string, head: string, body: string, bodyClass = ''): string {
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
</head>
<body class="${bodyClass}">
${body}
</body>
</html>`;
}

// --- local currencies -------------------------------------------------------------------------

const FULL_WIDTH = (text: string) =>
  text.replace(/[0-9,.]/g, (c) => String.fromCharCode(c === ',' ? 0xff0c : c === '.' ? 0xff0e : 0xff10 + Number(c)));
const ARABIC_INDIC = (text: string) =>
  text
    .replace(/[0-9]/g, (c) => String.fromCharCode(0x660 + Number(c)))
    .replace(/\./g, '\u066b')
    .replace(/,/g, '\u066c');
const group = (n: number, sep: string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
const decimal = (n: number, thousands: string, mark: string) => {
  const [whole, cents] = n.toFixed(2).split('.');
  return `${group(Number(whole), thousands)}${mark}${cents}`;
};
const indian = (n: number) => {
  const s = String(n);
  if (s.length <= 3) return s;
  return `${s.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${s.slice(-3)}`;
};

interface LocalStyle {
  currency: string;
  lang: string;
  rate: number;
  /** Whole amounts only (currencies without minor units in practice). */
  whole: boolean;
  format: (n: number) => string;
  buy: string;
}

/** One local style per product index (index modulo the list): the spec's countries' scripts. */
export const LOCAL_STYLES: LocalStyle[] = [
  {
    currency: 'JPY',
    lang: 'ja',
    rate: 150,
    whole: true,
    format: (n) => `￥${FULL_WIDTH(group(n, ','))}`,
    buy: 'カートに入れる',
  },
  {
    currency: 'JPY',
    lang: 'ja',
    rate: 150,
    whole: true,
    format: (n) => `${group(n, ',')}円（税込）`,
    buy: '購入手続きへ',
  },
  { currency: 'KRW', lang: 'ko', rate: 1300, whole: true, format: (n) => `${group(n, ',')}원`, buy: '장바구니 담기' },
  {
    currency: 'RUB',
    lang: 'ru',
    rate: 90,
    whole: true,
    format: (n) => `${group(n, '\u00a0')}\u00a0₽`,
    buy: 'В корзину',
  },
  {
    currency: 'PLN',
    lang: 'pl',
    rate: 4,
    whole: false,
    format: (n) => `${decimal(n, '\u00a0', ',')} zł`,
    buy: 'Dodaj do koszyka',
  },
  { currency: 'CZK', lang: 'cs', rate: 23, whole: true, format: (n) => `${group(n, ' ')} Kč`, buy: 'Vložit do košíku' },
  { currency: 'THB', lang: 'th', rate: 35, whole: true, format: (n) => `฿${group(n, ',')}`, buy: 'หยิบใส่ตะกร้า' },
  {
    currency: 'VND',
    lang: 'vi',
    rate: 25000,
    whole: true,
    format: (n) => `${group(n, '.')}₫`,
    buy: 'Thêm vào giỏ hàng',
  },
  { currency: 'INR', lang: 'hi', rate: 83, whole: true, format: (n) => `₹${indian(n)}`, buy: 'कार्ट में जोड़ें' },
  {
    currency: 'TRY',
    lang: 'tr',
    rate: 32,
    whole: false,
    format: (n) => `${decimal(n, '.', ',')} TL`,
    buy: 'Sepete Ekle',
  },
  { currency: 'UAH', lang: 'uk', rate: 40, whole: true, format: (n) => `${group(n, ' ')} грн`, buy: 'Купити' },
  {
    currency: 'BRL',
    lang: 'pt-BR',
    rate: 5,
    whole: false,
    format: (n) => `R$ ${decimal(n, '.', ',')}`,
    buy: 'Comprar agora',
  },
  {
    currency: 'SAR',
    lang: 'ar',
    rate: 3.75,
    whole: false,
    format: (n) => `${ARABIC_INDIC(n.toFixed(2))} ر.س`,
    buy: 'أضف إلى السلة',
  },
  { currency: 'HUF', lang: 'hu', rate: 360, whole: true, format: (n) => `${group(n, ' ')} Ft`, buy: 'Kosárba' },
  { currency: 'ILS', lang: 'he', rate: 3.7, whole: false, format: (n) => `₪${decimal(n, ',', '.')}`, buy: 'הוספה לסל' },
  { currency: 'TWD', lang: 'zh-TW', rate: 32, whole: true, format: (n) => `NT$${group(n, ',')}`, buy: '加入購物車' },
  { currency: 'CNY', lang: 'zh-CN', rate: 7, whole: false, format: (n) => `¥${n.toFixed(2)}`, buy: '加入购物车' },
  { currency: 'KZT', lang: 'kk', rate: 450, whole: true, format: (n) => `${group(n, ' ')} ₸`, buy: 'Себетке салу' },
];

/** Ground truth of a local-prices.test product: the amount and currency the page shows. */
export function localPrice(product: SimProduct): { amount: number; currency: string; text: string; style: LocalStyle } {
  const style = LOCAL_STYLES[product.index % LOCAL_STYLES.length];
  const raw = product.price * style.rate;
  const amount = style.whole ? Math.round(raw / 10) * 10 : Math.round(raw * 100) / 100;
  return { amount, currency: style.currency, text: style.format(amount), style };
}

// --- title-only ---------------------------------------------------------------------------------

/** The <title> and og:title of a title-only page: the shop's name after or before the product's. */
export function titleOnlyTitles(
  store: StoreModel,
  product: SimProduct,
): { title: string; ogTitle: string; siteName: string | null } {
  const k = product.index % 3;
  if (k === 0)
    return {
      title: `${product.title} | ${store.name}`,
      ogTitle: `${product.title} | ${store.name}`,
      siteName: store.name,
    };
  if (k === 1)
    return { title: `${store.name} – ${product.title}`, ogTitle: `${store.name} – ${product.title}`, siteName: null };
  return { title: `${product.title} - ${store.name}`, ogTitle: product.title, siteName: null };
}

// --- pages --------------------------------------------------------------------------------------

const buyForm = (product: SimProduct, label = 'Add to cart') =>
  `<form class="buy" action="/cart/add" method="post"><input type="hidden" name="id" value="${product.variants[0].id}"><button type="submit" ${product.available ? '' : 'disabled'}>${esc(label)}</button></form>`;

function shopifyJsonOnlyPage(store: StoreModel, product: SimProduct): string {
  const offers = product.variants.map((v) => ({
    '@type': 'Offer',
    sku: v.sku,
    price: v.price.toFixed(2),
    priceCurrency: store.priceStyle.currency,
    availability: availabilityUrl(v.available),
    url: `${product.url}?variant=${v.id}`,
  }));
  const head = `<link rel="preconnect" href="https://cdn.shopify.com"><script>window.Shopify = window.Shopify || {}; Shopify.shop = "${store.host}"; Shopify.currency = {"active":"${store.priceStyle.currency}","rate":"1.0"};</script>
${ld({ '@context': 'https://schema.org', '@type': 'Product', name: product.title, brand: { '@type': 'Brand', name: product.brand }, url: product.url, image: product.images.map((i) => i.url), offers })}`;
  const body = `<div id="shopify-section-product" class="shopify-section"><div class="product">
<h1 class="product__title">${esc(product.title)}</h1>
<div class="price"><span class="price-item price-item--regular">${usd(product.price)}</span></div>
${buyForm(product)}
</div></div>`;
  return page('en', `${product.title} – ${store.name}`, head, body, 'template-product');
}

function wooVariablePage(store: StoreModel, product: SimProduct): string {
  const id = product.index + 100;
  const symbol = '£';
  const attr = (name: string) => `attribute_pa_${name.toLowerCase()}`;
  const useVariationData = product.index % 2 === 0;
  const variations = product.variants.map((v) => ({
    attributes: Object.fromEntries(product.options.map((o, k) => [attr(o.name), v.optionValues[k].toLowerCase()])),
    availability_html: `<p class="stock ${v.available ? 'in-stock' : 'out-of-stock'}">${v.available ? 'In stock' : 'Out of stock'}</p>`,
    display_price: v.price,
    display_regular_price: v.compareAt ?? v.price,
    image: { src: v.image, alt: product.title },
    is_in_stock: v.available,
    sku: v.sku,
    variation_id: Number(v.id),
  }));
  const dataAttr = product.variants.length > 1 && useVariationData ? esc(JSON.stringify(variations)) : 'false';
  const selects = product.options
    .map(
      (o) =>
        `<tr><th class="label"><label for="pa_${o.name.toLowerCase()}">${esc(o.name)}</label></th><td class="value"><select id="pa_${o.name.toLowerCase()}" name="${attr(o.name)}" data-attribute_name="${attr(o.name)}"><option value="">Choose an option</option>${o.values.map((v) => `<option value="${esc(v.toLowerCase())}">${esc(v)}</option>`).join('')}</select></td></tr>`,
    )
    .join('');
  const low = Math.min(...product.variants.map((v) => v.price));
  const high = Math.max(...product.variants.map((v) => v.price));
  const structured =
    product.index % 2 === 1 && product.variants.length > 1
      ? {
          '@context': 'https://schema.org',
          '@type': 'ProductGroup',
          name: product.title,
          productGroupID: String(id),
          url: product.url,
          brand: { '@type': 'Brand', name: product.brand },
          variesBy: product.options.map((o) => `https://schema.org/${o.name.toLowerCase()}`),
          hasVariant: product.variants.map((v) => ({
            '@type': 'Product',
            name: `${product.title} - ${v.optionValues.join(', ')}`,
            sku: v.sku,
            ...Object.fromEntries(product.options.map((o, k) => [o.name.toLowerCase(), v.optionValues[k]])),
            offers: {
              '@type': 'Offer',
              price: v.price.toFixed(2),
              priceCurrency: 'GBP',
              availability: availabilityUrl(v.available),
            },
          })),
        }
      : {
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: product.title,
          sku: product.sku,
          url: product.url,
          brand: { '@type': 'Brand', name: product.brand },
          offers: [
            {
              '@type': 'AggregateOffer',
              lowPrice: low.toFixed(2),
              highPrice: high.toFixed(2),
              offerCount: product.variants.length,
              priceCurrency: 'GBP',
              availability: availabilityUrl(product.available),
            },
          ],
        };
  const head = `<link rel="stylesheet" href="https://${store.host}/wp-content/plugins/woocommerce/assets/css/woocommerce.css"><meta name="generator" content="WooCommerce 8.9.1">${ld(structured)}`;
  const priceHtml =
    low === high ? `${symbol}${low.toFixed(2)}` : `${symbol}${low.toFixed(2)} – ${symbol}${high.toFixed(2)}`;
  const body = `<div id="product-${id}" class="product type-product post-${id} ${product.variants.length > 1 ? 'product-type-variable' : 'product-type-simple'}">
<h1 class="product_title entry-title">${esc(product.title)}</h1>
<p class="price"><span class="woocommerce-Price-amount amount"><bdi>${esc(priceHtml)}</bdi></span></p>
<form class="variations_form cart" action="${esc(product.url)}" method="post" enctype="multipart/form-data" data-product_id="${id}" data-product_variations="${dataAttr}">
<table class="variations"><tbody>${selects}</tbody></table>
<button type="submit" class="single_add_to_cart_button button alt">Add to basket</button>
</form>
<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">${esc(product.sku)}</span></span></div>
</div>`;
  return page(
    'en-GB',
    `${product.title} – ${store.name}`,
    head,
    body,
    `product-template-default single single-product postid-${id} woocommerce woocommerce-page`,
  );
}

function logoHeadingPage(store: StoreModel, product: SimProduct): string {
  const logo =
    product.index % 2 === 0
      ? `<h1 class="site-logo"><a href="/"><img src="/cdn/images/logo.png" alt="${esc(store.name)}" width="180" height="40"></a></h1>`
      : `<h1 id="brand-name"><a href="/">${esc(store.name)}</a></h1>`;
  const body = `<div class="topbar">${logo}<a href="/cart">Cart (0)</a></div>
<div class="wrap"><div class="col-left"><img src="${esc(product.images[0].url)}" alt="${esc(product.title)}" width="800" height="800"></div>
<div class="col-right">
<h1>${esc(product.title)}</h1>
<p class="by">by ${esc(product.brand)}</p>
<p class="product-price">${usd(product.price)}</p>
${buyForm(product)}
<p>${esc(product.description)}</p>
</div></div>`;
  return page('en', `${product.title} | ${store.name}`, '', body);
}

function titleOnlyPage(store: StoreModel, product: SimProduct): string {
  const t = titleOnlyTitles(store, product);
  const head = [
    `<meta property="og:title" content="${esc(t.ogTitle)}">`,
    `<meta property="og:image" content="${esc(product.images[0].url)}">`,
    t.siteName ? `<meta property="og:site_name" content="${esc(t.siteName)}">` : '',
  ].join('\n');
  const body = `<div class="nav"><a href="/">${esc(store.name)}</a></div>
<div class="item"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<div class="info"><span class="price">${usd(product.price)}</span>
${buyForm(product, 'Buy now')}
<p>${esc(product.description)}</p></div></div>`;
  return page('en', t.title, head, body);
}

function localPricesPage(store: StoreModel, product: SimProduct): string {
  const local = localPrice(product);
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
<div class="main"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<h1>${esc(product.title)}</h1>
<p>${esc(local.text)}</p>
<form action="/cart/add" method="post"><button type="submit">${esc(local.style.buy)}</button></form>
<p>${esc(product.description)}</p></div>`;
  return page(local.style.lang, `${product.title} | ${store.name}`, '', body);
}

/** Ground truth of price-crowd.test: the price paid, and the "was" price when on sale. */
export function crowdTruth(product: SimProduct): { price: number; compareAt: number | null } {
  return { price: product.price, compareAt: product.compareAt };
}

function priceCrowdPage(store: StoreModel, product: SimProduct, related: SimProduct[]): string {
  const p = product.price;
  const was = product.compareAt;
  const k = product.index % 3;
  const wasLabel = ['Was', 'Regular price', 'RRP'][k];
  const structured = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: product.title,
    sku: product.sku,
    brand: { '@type': 'Brand', name: product.brand },
    // The theme's markup keeps the regular price while the page shows the sale price.
    offers: {
      '@type': 'Offer',
      price: (was ?? p).toFixed(2),
      priceCurrency: 'USD',
      availability: availabilityUrl(product.available),
    },
  };
  const unit = Math.round((p / 4) * 100) / 100;
  const wasHtml = was != null ? `<span class="lbl">${wasLabel}</span> <span class="amount">${usd(was)}</span> ` : '';
  const body = `<div class="page">
<div class="summary">
<h1>${esc(product.title)}</h1>
<div class="stars">4.5 (12 reviews)</div>
<div class="prices">${wasHtml}<span class="amount">${usd(p)}</span></div>
<div class="small"><span class="amount">${usd(unit)}</span> / 100 g</div>
<div class="small">or 4 interest-free payments of <span class="amount">${usd(Math.round((p / 4) * 100) / 100)}</span></div>
<div class="small">Extra 10% off with code SAVE10: <span class="amount">${usd(Math.round(p * 90) / 100)}</span></div>
${buyForm(product)}
</div>
<section class="more"><h2>Customers also bought</h2>${related.map((r) => `<div class="tile"><a href="${esc(r.url)}">${esc(r.title)}</a> <span class="amount">${usd(r.price)}</span></div>`).join('')}</section>
</div>`;
  // Related products are marked up too, before the product itself (no URL names the page's).
  const relatedLd = related.map((r) => ({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: r.title,
    sku: r.sku,
    brand: { '@type': 'Brand', name: r.brand },
    offers: { '@type': 'Offer', price: r.price.toFixed(2), priceCurrency: 'USD' },
  }));
  return page('en', `${product.title} | ${store.name}`, ld([...relatedLd, structured]), body);
}

function skuReferencePage(store: StoreModel, product: SimProduct, related: SimProduct[]): string {
  const k = product.index % 4;
  let after = '';
  const brandSlug = product.brand.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const price = `<span class="price">${usd(product.price)}</span>`;
  let head = '';
  let summary: string;
  if (k === 0) {
    head = ld(
      product.variants.map((v) => ({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: product.title,
        sku: v.sku,
        offers: {
          '@type': 'Offer',
          price: v.price.toFixed(2),
          priceCurrency: 'USD',
          availability: availabilityUrl(v.available),
        },
      })),
    );
    summary = `<h1>${esc(product.title)}</h1>
<a class="maker" href="/brand/${brandSlug}/" title="${esc(product.brand)}"><img src="/cdn/images/brand-${brandSlug}.png" alt="${esc(product.brand)}" width="60" height="30"></a>
${price}
<p class="product-color"><span>${esc(product.variants[0].optionValues[0] ?? '')}</span> - <span data-qa-qualifier="product-reference">${esc(product.sku)}</span></p>
${buyForm(product)}`;
  } else if (k === 1) {
    summary = `<div itemscope itemtype="http://schema.org/Product">
<meta itemtype="http://schema.org/Brand" itemscope itemprop="brand" content="${esc(product.brand)}">
<h1 itemprop="name">${esc(product.title)}</h1>
<span itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="${product.price.toFixed(2)}"><meta itemprop="priceCurrency" content="USD"><link itemprop="availability" href="${availabilityUrl(product.available)}"></span>
${price}
<p class="desc">Ref : <span itemprop="productID">${esc(product.sku)}</span></p>
${buyForm(product)}
</div>`;
  } else if (k === 3) {
    summary = `<h1>${esc(product.title)}</h1>
<meta itemprop="brand" content="${esc(product.brand)}">
${price}
<div class="promo-note">Save 10% today: enter code SAVE${String(product.index).padStart(4, '0')} at checkout.</div>
${buyForm(product)}`;
    after = `<div class="tabs"><div class="tab-panel" id="tab-details"><ul><li>Material: ${esc(product.tags[0] ?? 'mixed')}</li><li>SKU: ${esc(product.sku)}</li></ul></div></div>`;
  } else {
    summary = `<h1>${esc(product.title)}</h1>
<div class="byline"><a id="bylineInfo" href="/search?q=${brandSlug}">Brand: ${esc(product.brand)}</a></div>
${price}
<form data-product-sku="${esc(product.sku)}" action="/cart/add" method="post"><button type="submit" ${product.available ? '' : 'disabled'}>Add to Cart</button></form>`;
  }
  const cards = related
    .map(
      (r) =>
        `<div class="card"><a href="${esc(r.url)}">${esc(r.title)}</a> <span class="price">${usd(r.price)}</span><form data-product-sku="${esc(r.sku)}"><button>Add to Cart</button></form></div>`,
    )
    .join('');
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
<div class="product"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<div class="summary">${summary}</div>
<p>${esc(product.description)}</p></div>
${after}
<section class="related-products"><h2>You may also like</h2>${cards}</section>`;
  return page('en', `${product.title} | ${store.name}`, head, body);
}

/** Ground truth of price-markup.test: the price shown to pay, and the struck one where shown. */
export function priceMarkupTruth(product: SimProduct): { price: number; compareAt: number | null } {
  const compareAt = product.index % 3 === 1 ? (product.compareAt ?? Math.round(product.price * 125) / 100) : null;
  return { price: product.price, compareAt };
}

function priceMarkupPage(store: StoreModel, product: SimProduct): string {
  const k = product.index % 3;
  const p = product.price;
  const was = priceMarkupTruth(product).compareAt ?? p;
  let summary: string;
  let head = '';
  if (k === 0) {
    // Markup in minor units ("2599" for $25.99), never shown as such.
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: product.title,
      offers: { '@type': 'Offer', price: String(Math.round(p * 100)), priceCurrency: 'USD' },
    });
    const [whole, cents] = p.toFixed(2).split('.');
    summary = `<div class="pdp-price"><span class="price"><sup>$</sup>${whole}<sup>${cents}</sup></span></div><table class="specs"><tr><th>Item #</th><td>${esc(product.sku)}</td></tr><tr><th>Colour</th><td>${esc(product.variants[0].optionValues[0] ?? '-')}</td></tr></table>`;
  } else if (k === 1) {
    head = `<meta property="og:type" content="product"><meta property="product:price:amount" content="${was.toFixed(2)}"><meta property="product:price:currency" content="USD">`;
    summary = `<div class="price"><s>${usd(was)}</s> ${usd(p)}</div><dl class="facts"><dt>SKU</dt><dd>${esc(product.sku)}</dd></dl>`;
  } else {
    summary = `<div><span class="money">${usd(p)}</span> <span class="unit-price">${usd(Math.round((p / 8) * 100) / 100)}/oz</span></div><dl><dt>SKU:</dt><dd class="productView-info-value" data-product-sku>${esc(product.sku)}</dd></dl>`;
  }
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div><div class="product"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600"><div class="summary"><h1>${esc(product.title)}</h1>${summary}${buyForm(product)}</div><p>${esc(product.description)}</p></div>`;
  // Minified: no whitespace between tags.
  return page('en-US', `${product.title} | ${store.name}`, head, body).replace(/>\s+</g, '><');
}

/** Ground truth of sku-locale.test: the page's SKU, price and currency (see the header). */
export function skuLocaleTruth(product: SimProduct, url: string): { sku: string; price: number; currency: string } {
  const k = product.index % 6;
  if (k === 0) return { sku: product.sku, price: Math.round(product.price * 90), currency: 'RUB' };
  if (k === 1) return { sku: product.sku, price: Math.round(product.price * 150), currency: 'JPY' };
  if (k === 3) return { sku: product.sku, price: product.price, currency: 'AUD' };
  if (k === 4) return { sku: product.sku, price: product.price, currency: 'NZD' };
  if (k === 5) {
    const wanted = new URL(url).searchParams.get('sku');
    const v = product.variants.find((x) => x.sku === wanted) ?? product.variants[0];
    return { sku: v.sku, price: v.price, currency: 'USD' };
  }
  return { sku: product.sku, price: product.price, currency: 'USD' };
}

function skuLocalePage(store: StoreModel, product: SimProduct, url: URL): string {
  const k = product.index % 6;
  const truth = skuLocaleTruth(product, url.href);
  const spaced = (n: number, sep: string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  let lang = 'en';
  let head = '';
  let heading = esc(product.title);
  let summary: string;
  let buy = 'Add to cart';
  if (k === 0) {
    lang = 'ru';
    heading = `${esc(product.title)}, 1.5 L`;
    buy = 'В корзину';
    summary = `<p class="cost">${spaced(truth.price, '\u00a0')} ₽</p><div class="props"><span class="prop-name">Артикул:</span> <span class="prop-value">${esc(product.sku)}</span></div>`;
  } else if (k === 1) {
    lang = 'ja';
    buy = 'カートに入れる';
    summary = `<p class="cost">¥${spaced(truth.price, ',')}</p><p class="code">品番：${esc(product.sku)}</p>`;
  } else if (k === 2) {
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: product.title,
      sku: `SKU: ${product.sku}`,
      offers: {
        '@type': 'Offer',
        price: product.price.toFixed(2),
        priceCurrency: 'USD',
        availability: availabilityUrl(product.available),
      },
    });
    summary = `<p class="price">${usd(product.price)}</p>`;
  } else if (k === 3) {
    head = '<meta property="og:locale" content="en_AU">';
    summary = `<p class="cost">${usd(product.price)}</p><span itemprop="sku" content="${esc(product.sku)}"></span>`;
  } else if (k === 4) {
    head = `<meta name="sku" content="${esc(product.sku)}"><link rel="alternate" hreflang="en-nz" href="${esc(product.url)}"><link rel="alternate" hreflang="en-au" href="${esc(product.url.replace('://', '://au.'))}">`;
    summary = `<p class="cost">${usd(product.price)}</p>`;
  } else {
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: product.title,
      productGroupID: product.sku,
      variesBy: product.options.map((o) => o.name.toLowerCase()),
      hasVariant: product.variants.map((v) => ({
        '@type': 'Product',
        name: `${product.title} ${v.title}`,
        sku: v.sku,
        url: `${product.url}?sku=${encodeURIComponent(v.sku)}`,
        ...Object.fromEntries(product.options.map((o, i) => [o.name.toLowerCase(), v.optionValues[i]])),
        offers: {
          '@type': 'Offer',
          price: v.price.toFixed(2),
          priceCurrency: 'USD',
          availability: availabilityUrl(v.available),
        },
      })),
    });
    summary = `<p class="price">${usd(truth.price)}</p>`;
  }
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
<div class="product"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<div class="summary"><h1>${heading}</h1>${summary}${buyForm(product, buy)}</div>
<p>${esc(product.description)}</p></div>`;
  return page(lang, `${product.title} | ${store.name}`, head, body);
}

const nameWords = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 2),
  );

/** A product of the store sharing no word of its name with `product`'s (a recommendation). */
export function unrelatedProduct(
  store: StoreModel,
  product: SimProduct,
): { title: string; sku: string; price: number } {
  const own = nameWords(product.title);
  for (let k = 1; k < store.productCount; k++) {
    const other = store.product((product.index + k) % store.productCount);
    if (![...nameWords(other.title)].some((w) => own.has(w)))
      return { title: other.title, sku: other.sku, price: other.price };
  }
  return { title: 'Gift Voucher', sku: `GV-${product.index}`, price: 25 };
}

/** Ground truth of markup-elsewhere.test (see the header): the price is the one paid, tax included. */
export function elsewhereTruth(product: SimProduct): {
  sku: string;
  price: number;
  currency: string;
  net: number | null;
  range?: { min: number; max: number };
} {
  if (product.index % 9 === 8)
    return {
      sku: product.sku,
      price: product.price,
      currency: 'USD',
      net: null,
      range: { min: product.price, max: Math.round((product.price + 10) * 100) / 100 },
    };
  if (product.index % 9 === 6) return { sku: product.sku, price: product.price, currency: 'CAD', net: null };
  if (product.index % 9 === 5)
    return { sku: product.variants[0].sku, price: product.price, currency: 'USD', net: null };
  if (product.index % 9 === 3)
    return {
      sku: product.sku,
      price: product.price,
      currency: 'EUR',
      net: Math.round((product.price / 1.19) * 100) / 100,
    };
  return { sku: product.sku, price: product.price, currency: 'USD', net: null };
}

function markupElsewherePage(store: StoreModel, product: SimProduct): string {
  const k = product.index % 9;
  const truth = elsewhereTruth(product);
  const other = unrelatedProduct(store, product);
  const card = `<div class="recs"><h3>Customers also bought</h3><div itemscope itemtype="https://schema.org/Product"><a href="/products/${esc(other.sku.toLowerCase())}"><span itemprop="name">${esc(other.title)}</span></a><meta itemprop="sku" content="${esc(other.sku)}"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="${other.price.toFixed(2)}">${usd(other.price)}</span><meta itemprop="priceCurrency" content="USD"></div></div></div>`;
  let lang = 'en';
  let head = '';
  let before = '';
  let summary: string;
  let buy = 'Add to cart';
  if (k === 0) {
    before = card;
    summary = `<p class="price">${usd(truth.price)}</p><p class="product-meta">SKU: ${esc(product.sku)}</p>`;
  } else if (k === 1) {
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: other.title,
      sku: other.sku,
      url: `https://${store.host}/products/${other.sku.toLowerCase()}`,
      offers: { '@type': 'Offer', price: other.price.toFixed(2), priceCurrency: 'USD' },
    });
    summary = `<p class="price">${usd(truth.price)}</p><p class="product-meta">Item # ${esc(product.sku)}</p>`;
  } else if (k === 2) {
    const placeholder = ['{{ product.sku }}', 'N/A', product.title][Math.floor(product.index / 9) % 3];
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: product.title,
      sku: placeholder,
      brand: { '@type': 'Brand', name: product.brand },
      offers: {
        '@type': 'Offer',
        price: truth.price.toFixed(2),
        priceCurrency: 'USD',
        availability: availabilityUrl(product.available),
      },
    });
    summary = `<p class="price">${usd(truth.price)}</p><p>Reference: <span class="sku">${esc(product.sku)}</span></p>`;
  } else if (k === 8) {
    summary = `<p class="price">${usd(truth.range!.min)} – ${usd(truth.range!.max)}</p><p>SKU: ${esc(product.sku)}</p>`;
  } else if (k === 7) {
    before = `<div class="cart-widget"><div class="atc-status-message hidden"><h1>Adding to cart...</h1></div><div class="delivery-popover"><h1>Choose your delivery</h1></div></div>`;
    summary = `<p class="price">${usd(truth.price)}</p><p>SKU: ${esc(product.sku)}</p>`;
  } else if (k === 6) {
    // The shown price is filled in by a script: the markup alone states it.
    summary = `<p class="price" data-bind="price"></p><meta itemprop="price" content="${truth.price.toFixed(2)}"><meta itemprop="priceCurrency" content="CAD"><p>SKU: ${esc(product.sku)}</p>`;
  } else if (k === 5) {
    head = ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: product.title,
      // Each variant $5 dearer than the one before; listed dearest first.
      offers: product.variants
        .map((v, i) => ({
          '@type': 'Offer',
          name: `${product.title} ${v.title}`,
          sku: v.sku,
          price: (product.price + 5 * i).toFixed(2),
          priceCurrency: 'USD',
          availability: availabilityUrl(v.available),
        }))
        .reverse(),
    });
    summary = `<p class="price">${usd(truth.price)}</p>`;
  } else if (k === 4) {
    summary = `<p class="price">${usd(truth.price)}</p><ul class="specs"><li>Model #: MX${1000 + product.index}</li><li>SKU: ${esc(product.sku)}</li></ul>`;
  } else {
    lang = 'de-DE';
    buy = 'In den Warenkorb';
    const eur = (n: number) => `${n.toFixed(2).replace('.', ',')}\u00a0€`;
    summary = `<div class="prices"><p class="price price--net">${eur(truth.net!)} <small>zzgl. MwSt.</small></p><p class="price price--gross">${eur(truth.price)} <small>inkl. MwSt.</small></p></div><p>Art.-Nr.: ${esc(product.sku)}</p>`;
  }
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
${before}
<div class="product"><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<div class="summary"><h1>${esc(product.title)}</h1>${summary}${buyForm(product, buy)}</div>
<p>${esc(product.description)}</p></div>`;
  return page(lang, `${product.title} | ${store.name}`, head, body);
}

/** Ground truth of event-tickets.test: whether the page sells the ticket, and its price in CLP. */
export function eventTicketTruth(product: SimProduct): { sold: boolean; price: number | null } {
  const sold = product.index % 2 === 0;
  return { sold, price: sold ? Math.round(product.price * 1000) : null };
}

/** Ground truth of one-of-many.test: every page is a product page with this price (USD). */
export function oneOfManyTruth(product: SimProduct): { price: number } {
  return { price: product.index % 3 === 1 ? Math.round(product.price * 1000) : product.price };
}

function oneOfManyPage(store: StoreModel, product: SimProduct, related: SimProduct[]): string {
  const { price } = oneOfManyTruth(product);
  const money = (n: number) => `$${n.toLocaleString('en-US', { minimumFractionDigits: n % 1 ? 2 : 0 })}`;
  const image = `<img src="${esc(product.images[0].url)}" alt="${esc(product.title)}" width="600" height="600">`;
  const kind = product.index % 3;
  const head =
    kind === 0
      ? `<meta property="og:type" content="article"><meta property="og:title" content="${esc(product.title)}">`
      : '';
  let main: string;
  if (kind === 0)
    main = `<article class="posting"><h1>${esc(product.title)}</h1><p class="attrs">posted 3 days ago · pickup only</p>
${image}<p>${money(price)}</p><p>${esc(product.description)}</p><button type="button">Contact seller</button></article>`;
  else if (kind === 1)
    main = `<div class="vehicle"><h1>${esc(product.title)}</h1>${image}
<div class="hero-banner"><p class="small">Est. payment $1,249/mo</p><p id="item-price" class="bold">${money(price)}</p></div>
<p>${esc(product.description)}</p><a class="btn" href="/contact">Schedule a viewing</a></div>`;
  else
    main = `<div class="pdp"><h1>${esc(product.title)}</h1>${image}<span class="price">${money(price)}</span>
<form action="/cart/add" method="post"><button type="submit">Add to cart</button></form></div>`;
  const cards = related
    .concat(related)
    .slice(0, 8)
    .map(
      (r, i) =>
        `<div class="product-card"><a href="/products/${esc(r.handle)}-${i}"><img src="${esc(r.images[0].url)}" alt=""><span class="product-card__title">${esc(r.title)}</span></a><span class="price">${money(r.price)}</span></div>`,
    )
    .join('');
  const carousel = kind === 2 ? `<section class="carousel"><h2>More to love</h2>${cards}</section>` : '';
  return page(
    'en',
    `${product.title} | ${store.name}`,
    head,
    `<div class="top"><a href="/">${esc(store.name)}</a></div>${main}${carousel}`,
  );
}

/** Ground truth of title-classes.test: the product's name, with its brand (either is its name). */
export function titleClassesTruth(product: SimProduct): { title: string; price: number } {
  return { title: `${product.brand} ${product.title}`, price: product.price };
}

function titleClassesPage(store: StoreModel, product: SimProduct): string {
  const name = product.title;
  const words = name.split(' ');
  const price = usd(product.price);
  const og = (title: string) => `<meta property="og:title" content="${esc(title)}">`;
  const offers = { '@type': 'Offer', price: product.price.toFixed(2), priceCurrency: 'USD' };
  const jsonLd = (title: string) =>
    ld({ '@context': 'https://schema.org', '@type': 'Product', name: title, brand: product.brand, offers });
  // Each kind: what the head states, and the h1.
  const kinds: Array<[head: string, heading: string]> = [
    [og(`${product.brand} ${name} ${price}`), name],
    [og(name), `Details about ${name}`],
    [jsonLd(`${product.brand} ${name}`), words.slice(-2).join(' ')],
    [jsonLd(`${words.slice(0, Math.max(1, words.length - 2)).join(' ')}...`), name],
    [jsonLd(`${name} Model:`), name],
    [`${jsonLd(`${product.brand} ${name}`)}${og(`${price} · ${name}`)}`, product.productType],
    [og('Home, kitchen, audio & more'), name],
  ];
  const kind = product.index % kinds.length;
  const [head, heading] = kinds[kind];
  const microdata =
    kind === 1
      ? `<div itemscope itemtype="https://schema.org/Product"><meta itemprop="name" content="${esc(heading)}"></div>`
      : '';
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
<nav class="breadcrumb"><a href="/">Home</a> / <a href="/collections/all">${esc(product.productType)}</a></nav>${microdata}
<div class="pdp"><h1>${esc(heading)}</h1><img src="${esc(product.images[0].url)}" alt="" width="600" height="600">
<p class="brand">${esc(product.brand)}</p><span class="price">${price}</span>
<form action="/cart/add" method="post"><button type="submit">Add to cart</button></form></div>`;
  return page('en', `${name} | ${store.name}`, head, body);
}

/** Whether a quality host's product page is a product page (event-tickets.test announces some). */
export function qualityPageIsProduct(host: string, product: SimProduct): boolean {
  return host !== 'event-tickets.test' || eventTicketTruth(product).sold;
}

function eventTicketsPage(store: StoreModel, product: SimProduct): string {
  const truth = eventTicketTruth(product);
  const event = ld({
    '@context': 'https://schema.org',
    '@type': 'MusicEvent',
    name: product.title,
    startDate: '2026-03-20T21:00',
    location: { '@type': 'Place', name: 'Teatro Caupolicán' },
  });
  const clp = (n: number) => `$${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
  const sale = truth.sold
    ? `<p class="precio">${clp(truth.price!)}</p><form action="/carro" method="post"><button type="submit">Comprar</button></form>`
    : '<p>Venta de entradas próximamente.</p>';
  const body = `<div class="top"><a href="/">${esc(store.name)}</a></div>
<div class="evento"><img src="${esc(product.images[0].url)}" alt="" width="600" height="400">
<h1>${esc(product.title)}</h1><p>20 de marzo, 21:00 · Teatro Caupolicán</p>${sale}</div>`;
  return page('es-CL', `${product.title} | ${store.name}`, event, body);
}

/** The shop-specific replies of a quality host, or null where the common routes apply. */
export function qualityRoute(
  store: StoreModel,
  url: URL,
  productIndex: (pathname: string) => number | null,
  related: (index: number) => SimProduct[],
): QualityReply | null {
  const { pathname } = url;
  if (store.host === 'shopify-json-only.test') {
    const endpoint = /^\/products\/([^/]+)\.(js|json)$/.exec(pathname);
    if (endpoint) {
      const index = productIndex(`/products/${endpoint[1]}`);
      // The Ajax endpoint is unavailable here; `.json` is what the platform offers.
      if (index === null || endpoint[2] === 'js') return json({ errors: 'Not Found' }, 404);
      const product = shopifyJsonProduct(store.product(index));
      // Real `.json` variants carry no `available` (only the Ajax `.js` does).
      for (const v of product.variants) delete (v as { available?: boolean }).available;
      return json({ product });
    }
  }
  if (store.host === 'woo-variable.test') {
    const single = /^\/wp-json\/wc\/store\/v1\/products\/(\d+)$/.exec(pathname);
    if (single) {
      const index = Number(single[1]) - 100;
      if (index < 0 || index >= store.productCount) return json({ code: 'woocommerce_rest_product_invalid_id' }, 404);
      return json(wooProduct(store, store.product(index)));
    }
  }
  const index = productIndex(pathname);
  if (index === null) return null;
  const product = store.product(index);
  const shopify: Record<string, string> =
    store.flavor === 'shopify' ? { 'x-shopid': '5550002', 'set-cookie': '_shopify_y=sim; path=/' } : {};
  switch (store.host) {
    case 'shopify-json-only.test':
      return html(shopifyJsonOnlyPage(store, product), shopify);
    case 'woo-variable.test':
      return html(wooVariablePage(store, product));
    case 'logo-heading.test':
      return html(logoHeadingPage(store, product));
    case 'title-only.test':
      return html(titleOnlyPage(store, product));
    case 'local-prices.test':
      return html(localPricesPage(store, product));
    case 'price-crowd.test':
      return html(priceCrowdPage(store, product, related(index)));
    case 'sku-reference.test':
      return html(skuReferencePage(store, product, related(index)));
    case 'price-markup.test':
      return html(priceMarkupPage(store, product));
    case 'event-tickets.test':
      return html(eventTicketsPage(store, product));
    case 'sku-locale.test':
      return html(skuLocalePage(store, product, url));
    case 'markup-elsewhere.test':
      return html(markupElsewherePage(store, product));
    case 'one-of-many.test':
      return html(oneOfManyPage(store, product, related(index)));
    case 'title-classes.test':
      return html(titleClassesPage(store, product));
    default:
      return null;
  }
}
