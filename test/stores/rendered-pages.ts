// Stores whose product pages only render in a browser (issue: client-rendered pages). The HTML a
// plain fetch gets is a shell; one script (/static/app.js, the same on every host) builds the
// product into the page from where each store keeps it:
//
// | host | what the HTML holds | where the script finds the product |
// |---|---|---|
// | spa-inline.test | an empty `#root` | inline JSON (`<script type="application/json" id="app-state">`) |
// | spa-fetch.test | an empty `#root` | the same host's JSON endpoint `/api/items/<handle>` (fetch) |
// | spa-hydrate.test | title, description and images (server-rendered), no price and no SKU | hydration data `window.__INITIAL_STATE__` (the price only there) |
// | spa-hostile.test | an empty `#root` | inline JSON; first it tries the loopback canary (fetch, image, websocket) and the metadata address |
// | spa-never-settles.test | an empty `#root` | none: the script long-polls `/api/poll` forever (each answer held 1 s), one request always in flight |
// | spa-loop.test | an empty `#root` | none: the script loops forever |
//
// The data keys are the app's own (`name`, `amount`, `ccy`, ...), not a schema any HTML reader
// knows, so only the rendered page shows the product: microdata and visible text as a shop's
// templates write them.
import net from 'node:net';
import type { SimProduct, StoreModel, StoreSpec } from './catalog';

export const RENDERED_STORE_SPECS: StoreSpec[] = [
  { host: 'spa-inline.test', name: 'Inline App Store', flavor: 'generic', markup: 'dom' },
  { host: 'spa-fetch.test', name: 'Fetching App Store', flavor: 'generic', markup: 'dom' },
  { host: 'spa-hydrate.test', name: 'Hydrating App Store', flavor: 'generic', markup: 'dom' },
  { host: 'spa-hostile.test', name: 'Hostile App Store', flavor: 'generic', markup: 'dom' },
  { host: 'spa-never-settles.test', name: 'Restless App Store', flavor: 'generic', markup: 'dom' },
  { host: 'spa-loop.test', name: 'Looping App Store', flavor: 'generic', markup: 'dom' },
];

export const RENDERED_HOSTS: ReadonlySet<string> = new Set(RENDERED_STORE_SPECS.map((s) => s.host));

/** A loopback listener that counts every connection made to it and answers nothing. */
export interface Canary {
  port: number;
  origin: string;
  connections(): number;
  close(): Promise<void>;
}

export function startCanary(): Promise<Canary> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        port,
        origin: `http://127.0.0.1:${port}`,
        connections: () => count,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  holdMs?: number;
}

/** How long the simulator holds a long poll's answer (the page re-polls as each one ends). */
const POLL_HOLD_MS = 1000;

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
const page = (body: string): Reply => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body });
const json = (value: unknown): Reply => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(value),
});

/** The app's own view of a product. */
function appItem(product: SimProduct) {
  return {
    name: product.title,
    maker: product.brand,
    amount: Math.round(product.price * 100),
    ccy: product.currency,
    stock: product.available,
    pics: product.images.map((image) => ({ src: image.url, text: image.alt })),
    about: product.description,
  };
}

/** The app: builds the product page from an item (the same script on every host). */
const APP_JS = `
(function () {
  var root = document.getElementById('root');
  function money(cents, ccy) { return (cents / 100).toFixed(2) + ' ' + ccy; }
  function show(item) {
    document.title = item.name;
    var pics = item.pics.map(function (p) { return '<img src="' + p.src + '" alt="' + p.text + '" itemprop="image">'; }).join('');
    root.innerHTML = '<main itemscope itemtype="https://schema.org/Product" class="product">' +
      '<h1 itemprop="name">' + item.name + '</h1>' +
      '<p itemprop="brand">' + item.maker + '</p>' +
      '<div class="gallery">' + pics + '</div>' +
      '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">' +
      '<span class="price" itemprop="price" content="' + (item.amount / 100).toFixed(2) + '">' + money(item.amount, item.ccy) + '</span>' +
      '<meta itemprop="priceCurrency" content="' + item.ccy + '">' +
      '<link itemprop="availability" href="https://schema.org/' + (item.stock ? 'InStock' : 'OutOfStock') + '">' +
      '<p class="stock">' + (item.stock ? 'In stock' : 'Sold out') + '</p></div>' +
      '<div itemprop="description">' + item.about + '</div></main>';
  }
  function hydrate(state) {
    var offer = document.getElementById('offer');
    offer.innerHTML = '<span class="price" itemprop="price" content="' + (state.amount / 100).toFixed(2) + '">' + money(state.amount, state.ccy) + '</span>' +
      '<meta itemprop="priceCurrency" content="' + state.ccy + '">' +
      '<link itemprop="availability" href="https://schema.org/' + (state.stock ? 'InStock' : 'OutOfStock') + '">' +
      '<p class="stock">' + (state.stock ? 'In stock' : 'Sold out') + '</p>';
  }
  var mode = document.documentElement.getAttribute('data-mode');
  if (mode === 'inline') show(JSON.parse(document.getElementById('app-state').textContent).item);
  if (mode === 'fetch') fetch(root.getAttribute('data-source')).then(function (r) { return r.json(); }).then(show);
  if (mode === 'hydrate') hydrate(window.__INITIAL_STATE__.offer);
  // Long polling: the next request leaves as the last one ends, so one is always in flight.
  function poll() { fetch('/api/poll?t=' + Date.now()).then(poll, poll); }
  if (mode === 'restless') poll();
})();
`;

function shell(store: StoreModel, mode: string, extraHead = '', rootAttributes = ''): string {
  return `<!doctype html><html lang="en" data-mode="${mode}"><head><meta charset="utf-8"><title>${esc(store.name)}</title>${extraHead}</head>
<body><div id="root"${rootAttributes}></div><script src="/static/app.js" defer></script></body></html>`;
}

/** Tries every way out of the page the hostile store knows, then renders like the inline store. */
function hostileScript(canaryOrigin: string): string {
  const ws = canaryOrigin.replace(/^http/, 'ws');
  return `<script>
  try { fetch('${canaryOrigin}/steal').catch(function () {}); } catch (e) {}
  try { fetch('http://169.254.169.254/latest/meta-data/iam/security-credentials/').catch(function () {}); } catch (e) {}
  try { var x = new XMLHttpRequest(); x.open('GET', 'http://localhost:${new URL(canaryOrigin).port}/xhr'); x.send(); } catch (e) {}
  try { new WebSocket('${ws}/socket'); } catch (e) {}
  try { var i = new Image(); i.src = '${canaryOrigin}/pixel.png'; } catch (e) {}
  try { window.open('${canaryOrigin}/popup'); } catch (e) {}
</script>`;
}

function hydratedPage(store: StoreModel, product: SimProduct): string {
  const item = appItem(product);
  const state = { offer: { amount: item.amount, ccy: item.ccy, stock: item.stock } };
  const images = product.images.map((i) => `<img src="${esc(i.url)}" alt="${esc(i.alt)}" itemprop="image">`).join('');
  return `<!doctype html><html lang="en" data-mode="hydrate"><head><meta charset="utf-8"><title>${esc(product.title)} | ${esc(store.name)}</title></head>
<body><div id="root" data-server-rendered="true"><main itemscope itemtype="https://schema.org/Product" class="product">
<h1 itemprop="name">${esc(product.title)}</h1><p itemprop="brand">${esc(product.brand)}</p><div class="gallery">${images}</div>
<div id="offer" itemprop="offers" itemscope itemtype="https://schema.org/Offer"></div>
<div itemprop="description">${esc(product.description)}</div></main></div>
<script>window.__INITIAL_STATE__ = ${inlineJson(state)};</script><script src="/static/app.js" defer></script></body></html>`;
}

/** The reply for a rendered-only store's path, or null (the simulator's common routes answer). */
export function renderedRoute(
  store: StoreModel,
  url: URL,
  productIndex: (pathname: string) => number | null,
  canaryOrigin: string,
): Reply | null {
  const { pathname } = url;
  if (pathname === '/static/app.js')
    return { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' }, body: APP_JS };
  // A long poll, as such pages do it: the server holds each answer, so a request is in flight
  // even while a loaded machine stalls the page's script (an instant answer left a gap each time).
  if (pathname === '/api/poll') return { ...json({ ok: true }), holdMs: POLL_HOLD_MS };
  const item = /^\/api\/items\/([^/]+)$/.exec(pathname);
  if (item) {
    const index = productIndex(`/products/${item[1]}`);
    return index === null
      ? { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not found"}' }
      : json(appItem(store.product(index)));
  }
  const index = productIndex(pathname);
  if (index === null) return null;
  const product = store.product(index);
  const state = `<script type="application/json" id="app-state">${inlineJson({ item: appItem(product) })}</script>`;
  switch (store.host) {
    case 'spa-inline.test':
      return page(shell(store, 'inline', state));
    case 'spa-fetch.test':
      return page(shell(store, 'fetch', '', ` data-source="/api/items/${encodeURIComponent(product.handle)}"`));
    case 'spa-hydrate.test':
      return page(hydratedPage(store, product));
    case 'spa-hostile.test':
      return page(shell(store, 'inline', state + hostileScript(canaryOrigin)));
    case 'spa-never-settles.test':
      return page(shell(store, 'restless'));
    case 'spa-loop.test':
      return page(shell(store, 'loop', '<script>for (;;) {}</script>'));
    default:
      return null;
  }
}
