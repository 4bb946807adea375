// The got-based fetcher against the store simulator over real loopback HTTP: every behaviour
// the engine relies on (redirects, retries, timeouts, robots, bot walls, SSRF, caps, content types).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptLanguageFor,
  createHttpFetcher,
  isBlockedIp,
  parseRetryAfter,
  type HttpFetcherOptions,
} from '../../lambdas/adapters/http-fetch';
import { createGuardedLookup } from '../../lambdas/adapters/http-fetch/ssrf';
import { FetchFailure, type FetchRequest } from '../../lambdas/ports/fetcher';
import { flakyFailuresFor, startStoreSimulator, type StoreSimulator } from '../stores';

let sim: StoreSimulator;
beforeAll(async () => {
  sim = await startStoreSimulator({ productsPerStore: 30, seed: 3, slowDelayMs: 2000 });
});
afterAll(async () => {
  await sim?.close();
});

const fetcherFor = (overrides: HttpFetcherOptions = {}) =>
  createHttpFetcher({
    resolve: sim.resolve,
    crawlDelayMs: 0,
    retryBaseDelayMs: 5,
    connectTimeoutMs: 2000,
    readTimeoutMs: 2000,
    ...overrides,
  });

async function failure(promise: Promise<unknown>): Promise<FetchFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FetchFailure);
    return error as FetchFailure;
  }
  throw new Error('expected the fetch to fail');
}

describe('successful fetches', () => {
  it('fetches a product page through PDS_RESOLVE keeping URL and Host, decompressed', async () => {
    const product = sim.store('shopify-apparel.test').product(2);
    const page = await fetcherFor().fetch({ url: product.url });
    expect(page.status).toBe(200);
    expect(page.requestedUrl).toBe(product.url);
    expect(page.finalUrl).toBe(product.url);
    expect(page.contentType).toContain('text/html');
    expect(page.body).toContain(`<h1 class="product-title">${product.title}</h1>`);
  });

  it('sends the identifying User-Agent, Accept-Language for the country and the logical Host', async () => {
    const fetcher = fetcherFor();
    const echo = await fetcher.fetch({
      url: 'https://jsonld-shop.test/debug/headers',
      countryCode: 'de',
      headers: { Accept: 'application/json' },
    });
    const { headers } = JSON.parse(echo.body) as { headers: Record<string, string> };
    expect(headers['accept-language']).toBe('de-DE,de;q=0.9,en;q=0.5');
    expect(headers['user-agent']).toMatch(/^ProductDataService\/1\.0 \(\+https:\/\//);
    expect(headers.host).toBe('jsonld-shop.test');
    expect(headers['accept-encoding']).toMatch(/gzip/);
    const us = JSON.parse(
      (
        await fetcher.fetch({
          url: 'https://www.jsonld-shop.test/debug/headers',
          countryCode: 'us',
          headers: { Accept: 'application/json' },
        })
      ).body,
    );
    expect(us.headers['accept-language']).toBe('en-US,en;q=0.9');
    expect(us.headers.host).toBe('www.jsonld-shop.test');
  });

  it('follows a 3-hop redirect chain and reports the final URL', async () => {
    const page = await fetcherFor().fetch({ url: 'https://redirect-chain.test/start/4' });
    expect(page.status).toBe(200);
    expect(page.finalUrl).toBe(sim.store('redirect-chain.test').productUrl(4));
    expect(page.finalUrl).not.toBe(page.requestedUrl);
  });

  it('returns 404 pages with their status so the engine can decide', async () => {
    const page = await fetcherFor().fetch({ url: 'https://jsonld-shop.test/products/gone-12345' });
    expect(page.status).toBe(404);
    expect(page.body).toContain('404');
  });

  it('accepts JSON only when the request asked for it', async () => {
    const product = sim.store('shopify-apparel.test').product(1);
    const fetcher = fetcherFor();
    expect((await failure(fetcher.fetch({ url: `${product.url}.js` }))).kind).toBe('non_html');
    const ajax = await fetcher.fetch({ url: `${product.url}.js`, headers: { Accept: 'application/json' } });
    expect(JSON.parse(ajax.body).price).toBe(Math.round(product.price * 100));
    const woo = await fetcher.fetch({
      url: 'https://woo-home.test/wp-json/wc/store/v1/products?per_page=3',
      headers: { accept: 'application/json' },
    });
    expect(JSON.parse(woo.body)).toHaveLength(3);
  });
});

describe('retries', () => {
  it('honours Retry-After on 429 and then succeeds', async () => {
    const url = `${sim.store('rate-limited.test').productUrl(3)}?r=honoured`;
    const started = Date.now();
    const page = await fetcherFor().fetch({ url });
    expect(page.status).toBe(200);
    expect(sim.hits('rate-limited.test', new URL(url).pathname + new URL(url).search)).toBe(2);
    // Retry-After: 1 means the second attempt waited for about a second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('reports a 429 whose Retry-After is beyond the cap instead of waiting', async () => {
    const url = `${sim.store('rate-limited.test').productUrl(4)}?retry_after=120`;
    const failed = await failure(fetcherFor({ maxRetryAfterMs: 2000 }).fetch({ url }));
    expect(failed.kind).toBe('http_status');
    expect(failed.details.status).toBe(429);
    const target = new URL(url);
    expect(sim.hits('rate-limited.test', target.pathname + target.search)).toBe(1);
  });

  it('recovers a flaky URL within the retry budget', async () => {
    const store = sim.store('flaky.test');
    const index = [...Array(30).keys()].find((i) => flakyFailuresFor(store.productPath(i)) === 2)!;
    const page = await fetcherFor({ retries: 2 }).fetch({ url: store.productUrl(index) });
    expect(page.status).toBe(200);
    expect(sim.hits('flaky.test', store.productPath(index))).toBe(3);
  });

  it('gives up with http_status after the retries on a persistent 5xx', async () => {
    const failed = await failure(fetcherFor({ retries: 2 }).fetch({ url: 'https://flaky.test/always-down' }));
    expect(failed.kind).toBe('http_status');
    expect(failed.details.status).toBe(503);
    expect(sim.hits('flaky.test', '/always-down')).toBe(3);
  });

  it('parses Retry-After seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});

describe('failures', () => {
  it('times out on a slow host and on a stalled body', async () => {
    const fetcher = fetcherFor({ readTimeoutMs: 300, retries: 0 });
    expect((await failure(fetcher.fetch({ url: 'https://slow.test/products/anything' }))).kind).toBe('timeout');
    expect((await failure(fetcher.fetch({ url: 'https://slow.test/slow-body?delay_ms=1500' }))).kind).toBe('timeout');
  });

  it('obeys robots.txt, fetching it once per host', async () => {
    const fetcher = fetcherFor();
    const blocked = await failure(fetcher.fetch({ url: sim.store('robots-blocked.test').productUrl(0) }));
    expect(blocked.kind).toBe('robots_disallowed');
    expect((await failure(fetcher.fetch({ url: 'https://jsonld-shop.test/cart' }))).kind).toBe('robots_disallowed');
    const before = sim.hits('microdata-shop.test', '/robots.txt');
    for (const i of [0, 1, 2]) await fetcher.fetch({ url: sim.store('microdata-shop.test').productUrl(i) });
    expect(sim.hits('microdata-shop.test', '/robots.txt')).toBe(before + 1);
    const rules = await fetcher.robots('https://jsonld-shop.test/');
    expect(rules.sitemaps).toEqual(['https://jsonld-shop.test/sitemap.xml']);
  });

  it('a failure of its own host gate is not the store refusing robots.txt, and is not remembered', async () => {
    let gateDown = true;
    const fetcher = fetcherFor({
      gate: {
        acquire: async () => {
          if (gateDown) throw new Error('the table is unreachable');
          return () => undefined;
        },
        pause: async () => undefined,
      },
    });
    const url = sim.store('microdata-shop.test').productUrl(1);
    const error = await fetcher.fetch({ url }).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(FetchFailure);
    expect((error as Error).message).toBe('the table is unreachable');
    gateDown = false;
    expect((await fetcher.fetch({ url })).status).toBe(200);
  });

  it('can be told to ignore robots.txt', async () => {
    const page = await fetcherFor({ respectRobots: false }).fetch({
      url: sim.store('robots-blocked.test').productUrl(0),
    });
    expect(page.status).toBe(200);
    const perRequest = await fetcherFor().fetch({
      url: sim.store('robots-blocked.test').productUrl(1),
      ignoreRobots: true,
    });
    expect(perRequest.status).toBe(200);
  });

  it('reports 403 and captcha pages as bot walls', async () => {
    const fetcher = fetcherFor();
    const forbidden = await failure(fetcher.fetch({ url: 'https://bot-wall.test/products/x' }));
    expect(forbidden.kind).toBe('bot_wall');
    expect(forbidden.details.status).toBe(403);
    expect((await failure(fetcher.fetch({ url: 'https://bot-wall.test/challenge-200' }))).kind).toBe('bot_wall');
  });

  it('refuses loopback and private targets that are not in the resolve map', async () => {
    const fetcher = fetcherFor();
    expect((await failure(fetcher.fetch({ url: `http://127.0.0.1:${sim.port}/` }))).kind).toBe('blocked_address');
    expect((await failure(fetcher.fetch({ url: 'http://[::1]/' }))).kind).toBe('blocked_address');
    expect((await failure(fetcher.fetch({ url: 'http://169.254.169.254/latest/meta-data/' }))).kind).toBe(
      'blocked_address',
    );
    // A name that resolves to loopback is refused inside the socket's own DNS lookup.
    const lookup = createGuardedLookup();
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(error?.code).toBe('EBLOCKEDADDRESS');
  });

  it('checks every redirect hop: metadata, private, loopback, mapped IPv6, other schemes, loops', async () => {
    const fetcher = fetcherFor();
    const metadata = await failure(fetcher.fetch({ url: 'https://redirect-private.test/to-metadata' }));
    expect(metadata.kind).toBe('blocked_address');
    expect(metadata.details.finalUrl).toContain('169.254.169.254');
    expect((await failure(fetcher.fetch({ url: 'https://redirect-private.test/to-private' }))).kind).toBe(
      'blocked_address',
    );
    expect((await failure(fetcher.fetch({ url: 'https://redirect-private.test/to-loopback' }))).kind).toBe(
      'blocked_address',
    );
    expect((await failure(fetcher.fetch({ url: 'https://redirect-private.test/to-ipv6-mapped' }))).kind).toBe(
      'blocked_address',
    );
    expect((await failure(fetcher.fetch({ url: 'https://redirect-private.test/to-ftp' }))).kind).toBe('malformed_url');
    expect((await failure(fetcher.fetch({ url: 'https://redirect-chain.test/loop' }))).kind).toBe('too_many_redirects');
  });

  it('caps the body size, streamed or declared', async () => {
    const fetcher = fetcherFor();
    expect((await failure(fetcher.fetch({ url: sim.store('huge-page.test').productUrl(0) }))).kind).toBe('too_large');
    expect((await failure(fetcher.fetch({ url: 'https://huge-page.test/huge-declared' }))).kind).toBe('too_large');
    expect(
      (await failure(fetcherFor({ maxBytes: 1000 }).fetch({ url: sim.store('jsonld-shop.test').productUrl(0) }))).kind,
    ).toBe('too_large');
  });

  it('refuses non-HTML documents', async () => {
    const fetcher = fetcherFor();
    expect((await failure(fetcher.fetch({ url: 'https://non-html.test/catalog.pdf' }))).kind).toBe('non_html');
    expect((await failure(fetcher.fetch({ url: sim.store('non-html.test').productUrl(0) }))).kind).toBe('non_html');
  });

  it('reports malformed URLs and DNS failures', async () => {
    const fetcher = fetcherFor();
    expect((await failure(fetcher.fetch({ url: 'ftp://shop.example/x' }))).kind).toBe('malformed_url');
    expect((await failure(fetcher.fetch({ url: '' }))).kind).toBe('malformed_url');
    expect((await failure(fetcher.fetch({ url: 'https://no-such-store.invalid/products/x' }))).kind).toBe('dns');
  });
});

describe('politeness and egress', () => {
  it('keeps per-host concurrency within the limit', async () => {
    const fetcher = fetcherFor({ perHostConcurrency: 1, readTimeoutMs: 3000 });
    const store = sim.store('slow.test');
    await fetcher.robots('https://slow.test/');
    await Promise.all([0, 1, 2].map((i) => fetcher.fetch({ url: `${store.productUrl(i)}?delay_ms=100` })));
    expect(sim.peakConcurrency('slow.test')).toBe(1);
  });

  it('tunnels through the egress proxy of the request country', async () => {
    const connects: string[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      connects.push(String(req.url));
      const [host, port] = String(req.url).split(/:(?=\d+$)/);
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const fetcher = fetcherFor({ egressProxies: { de: proxyUrl } });
      const request: FetchRequest = { url: sim.store('euro-shop.test').productUrl(1), countryCode: 'de' };
      const page = await fetcher.fetch(request);
      expect(page.status).toBe(200);
      expect(connects).toContain(`127.0.0.1:${sim.port}`);
      const direct = connects.length;
      await fetcher.fetch({ url: sim.store('euro-shop.test').productUrl(2), countryCode: 'us' });
      expect(connects.length).toBe(direct);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

describe('helpers', () => {
  it('classifies addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
    ]) {
      expect(isBlockedIp(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '151.101.1.69', '2606:4700::1111'])
      expect(isBlockedIp(address), address).toBe(false);
  });

  it('builds Accept-Language per country', () => {
    expect(acceptLanguageFor('de')).toBe('de-DE,de;q=0.9,en;q=0.5');
    expect(acceptLanguageFor('ch')).toBe('de-CH,de;q=0.9,en;q=0.5');
    expect(acceptLanguageFor('gb')).toBe('en-GB,en;q=0.9');
    expect(acceptLanguageFor(undefined)).toBe('en-US,en;q=0.9');
    expect(acceptLanguageFor('zz')).toBe('en-US,en;q=0.9');
  });
});
