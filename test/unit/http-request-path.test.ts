// The request path's shortcuts give exactly what the general code gives: the local server's
// request-target reading against WHATWG URL parsing (the reference it replaces for plain
// targets), and the literal-route lookup against the full pattern match over the route table.
import { describe, expect, it } from 'vitest';
import { requestTarget, type RequestTarget } from '../../lambdas/local/http-server';
import { matchRoute, routesForPath } from '../../lambdas/http/match';
import { ROUTES } from '../../lambdas/topology/routes';

/** What the server read from `new URL(...)` before the shortcut (and still does for other targets). */
function reference(rawUrl: string): RequestTarget {
  let url: URL;
  try {
    url = new URL(rawUrl, 'http://localhost');
  } catch {
    url = new URL('http://localhost/');
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (name === '__proto__') continue;
    query[name] = Object.hasOwn(query, name) ? `${query[name]},${value}` : value;
  }
  return {
    path: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    query: Object.keys(query).length ? query : undefined,
  };
}

/** Deterministic pseudo-random numbers (mulberry32), so a failure names a reproducible input. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIXED = [
  '/',
  '/health',
  '/v2/vendors',
  '/v2/vendors/',
  '/v2/vendors?page_size=20',
  '/v2/vendors?page=2&page_size=5&page_size=7',
  '/v2/vendors?',
  '/v2/vendors??a=1',
  '/v2/vendors?a=1&&b=&c',
  '/v2/vendors?q=a+b%20c&x=%zz&y=%E2%82%AC',
  '/v2/vendors?constructor=1&__proto__=2&toString=3',
  '/v2/vendors?a=1#frag',
  "/v2/vendors?q=it's",
  '/v2/vendors?q=a b',
  '/v2/vendors?q="x"<y>',
  '/v2/extract/extract-urls-1?page=2&tag=a&tag=b',
  '/v1/products/a%2Fb',
  '/v1/products/%2e%2e/x',
  '/v1/products/%2E/x',
  '/v1/products/../../health',
  '/v1/products/./x',
  '/v1/.well-known/x',
  '//evil.example/health',
  '/a//b',
  '/a/b/',
  '\\health',
  '/a\\b',
  '/é',
  '/a b',
  '/a%zz',
  '/a|b^c{d}e`f',
  'http://other.example/v2/vendors?x=1',
  '*',
  '',
  '/v2/vendors?q=\u00e9',
];

describe('request target', () => {
  it('reads fixed targets as WHATWG URL parsing does', () => {
    for (const target of FIXED) expect(requestTarget(target), target).toEqual(reference(target));
    expect(requestTarget(undefined)).toEqual(reference('/'));
  });

  it('reads 20,000 random targets as WHATWG URL parsing does', () => {
    const next = random(12);
    const alphabet = [
      ...'abcXYZ019-_.~!$&()*+,;=:@%/?#',
      "'",
      '"',
      ' ',
      '<',
      '>',
      '\\',
      '|',
      '^',
      '`',
      '{',
      '}',
      '[',
      ']',
      'é',
      '€',
      '%2e',
      '%2E',
      '%41',
      '..',
      '\t',
    ];
    for (let i = 0; i < 20_000; i++) {
      let target = '/';
      const length = Math.floor(next() * 24);
      for (let j = 0; j < length; j++) target += alphabet[Math.floor(next() * alphabet.length)];
      expect(requestTarget(target), JSON.stringify(target)).toEqual(reference(target));
    }
  });

  it('reads 20,000 random plain targets (the shortcut) as WHATWG URL parsing does', () => {
    const next = random(34);
    const alphabet = [...'ab1-_.~!$&()*+,;=:@/?', '%41', '%2e', '%zz', '%', '=', '&', '&&', '__proto__', 'constructor'];
    for (let i = 0; i < 20_000; i++) {
      let target = '/v2/x';
      const length = Math.floor(next() * 16);
      for (let j = 0; j < length; j++) target += alphabet[Math.floor(next() * alphabet.length)];
      expect(requestTarget(target), JSON.stringify(target)).toEqual(reference(target));
    }
  });
});

describe('route match', () => {
  it('finds literal routes directly, exactly as the full match over the table does', () => {
    const methods = [...new Set(ROUTES.map((route) => route.method)), 'HEAD', 'get'];
    const paths = ROUTES.flatMap((route) => {
      const path = route.path.replace(/\{(\w+)\}/g, 'x1');
      return [path, `${path}/`, `${path}//`, path.toUpperCase(), `${path}x`];
    });
    let literalHits = 0;
    for (const method of methods) {
      for (const path of paths) {
        const full = routesForPath(path).find((m) => m.route.method === method.toUpperCase()) ?? null;
        const found = matchRoute(method, path);
        expect(found, `${method} ${path}`).toEqual(full);
        if (found && Object.keys(found.pathParameters).length === 0) literalHits++;
      }
    }
    expect(literalHits).toBeGreaterThan(20);
  });
});
