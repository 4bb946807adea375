// What a URL's shape says: a product identifier in the path or query, the product's handle,
// and whether the path is a typical non-product page (home, collection, search, cart, blog).

const ID_PARAMS = [
  'sku',
  'childsku',
  'pid',
  'productid',
  'product_id',
  'itemid',
  'item_id',
  'articleid',
  'skuid',
  'variant',
  // osCommerce/Zen Cart, other carts and marketplaces.
  'products_id',
  'prod_id',
  'product_code',
  'productcode',
  'itemno',
  'item_no',
  'goods_id',
  'goodsno',
  'artnr',
];

/** An identifier the URL carries: ?sku=…, /dp/<ASIN>, a trailing numeric id. Null when none. */
export function identifierFromUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  for (const [k, v] of url.searchParams) {
    if (ID_PARAMS.includes(k.toLowerCase()) && /^[A-Za-z0-9._-]{3,40}$/.test(v) && /\d/.test(v)) return v;
  }
  const path = decodeURIComponent(url.pathname);
  // The same names as path pairs (".../product_info.php/products_id/66868").
  const pair = path.match(/\/([a-z_]+)\/([A-Za-z0-9._-]{3,40})(?:\/|$)/i);
  if (pair && ID_PARAMS.includes(pair[1].toLowerCase()) && /\d/.test(pair[2])) return pair[2];
  const asin = path.match(/\/(?:dp|gp\/product)\/([A-Z0-9]{10})(?:[/?]|$)/);
  if (asin) return asin[1];
  const segments = path.split('/').filter(Boolean);
  const last = (segments[segments.length - 1] ?? '').replace(/\.(html?|aspx?|php)$/i, '');
  // A numeric id at the end of the last segment ("...-12345678") or as the segment itself.
  const trailing = last.match(/(?:^|[-_.])((?:[A-Z]{1,3})?\d{5,})$/i);
  if (trailing) return trailing[1];
  // A long id that leads the last segment ("/item/93133869_alexander-girard-pillows").
  const leading = last.match(/^(\d{6,})[-_]/);
  if (leading) return leading[1];
  // Or a segment that is itself a long number (".../29099468/product.html").
  for (let i = segments.length - 1; i >= 0 && i >= segments.length - 3; i--) {
    if (/^\d{6,}$/.test(segments[i])) return segments[i];
  }
  return null;
}

export function handleFromUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    const segments = url.pathname.split('/').filter(Boolean);
    const i = segments.findIndex((s) => s === 'products' || s === 'product' || s === 'p');
    const seg = i >= 0 && segments[i + 1] ? segments[i + 1] : segments[segments.length - 1];
    if (!seg) return null;
    const handle = decodeURIComponent(seg)
      .replace(/\.(html?|aspx?|php|js|json)$/i, '')
      .toLowerCase();
    return handle || null;
  } catch {
    return null;
  }
}

/** Shopify product path: /products/<handle> (also under /collections/<c>/products/<handle>). */
export function shopifyHandle(raw: string): string | null {
  try {
    const m = new URL(raw).pathname.match(/\/products\/([^/?#.]+)/);
    return m ? decodeURIComponent(m[1]) : null;
  } catch {
    return null;
  }
}

export type UrlKind = 'home' | 'collection' | 'search' | 'cart' | 'account' | 'blog' | 'info' | 'product' | 'unknown';

export function urlKind(raw: string): UrlKind {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'unknown';
  }
  const path = url.pathname.toLowerCase().replace(/\/+$/, '');
  const q = url.searchParams;
  if (path === '' || /^\/(index\.(html?|php))?$/.test(path) || /^\/[a-z]{2}([-_][a-z]{2})?$/.test(path)) return 'home';
  if (
    /\/products?\/[^/]+/.test(path) ||
    /\/(dp|gp\/product)\/[a-z0-9]{10}/.test(path) ||
    /\/p\/[^/]+/.test(path) ||
    /\/(item|itm|listing|artikel|produkt|produit|producto|prodotto|prod|pd|pdp)\/[^/]+/.test(path) ||
    /\/p-[^/]+/.test(path)
  )
    return 'product';
  if (
    /(^|\/)(search|suche|recherche|buscar|busca|cerca|zoeken|catalogsearch)(\/|$)/.test(path) ||
    q.has('q') ||
    (q.has('s') && !path.includes('product'))
  )
    return 'search';
  if (/(^|\/)(cart|basket|checkout|bag|warenkorb|panier|carrito|carrello|winkelwagen)(\/|$)/.test(path)) return 'cart';
  if (/(^|\/)(account|login|signin|sign-in|register|my-account|customer)(\/|$)/.test(path)) return 'account';
  if (/(^|\/)(blog|blogs|news|articles?|journal|magazine|stories|press)(\/|$)/.test(path)) return 'blog';
  if (
    /(^|\/)(collections?|category|categories|c|shop|catalog|catalogue|department|brands?|tags?|product-category|kategorie|categorie|categoria)(\/|$)/.test(
      path,
    )
  )
    return 'collection';
  if (/(^|\/)(pages|about|contact|faq|help|policies|policy|terms|privacy|shipping|returns|stores?)(\/|$)/.test(path))
    return 'info';
  return 'unknown';
}
