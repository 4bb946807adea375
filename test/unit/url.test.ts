import { describe, expect, it } from 'vitest';
import { normalizeUrl, vendorKey, isTrackingParam, hostOf } from '../../lambdas/domain/extraction/url';

const ok = (input: string) => {
  const r = normalizeUrl(input);
  if (!r.ok) throw new Error(`expected ok for ${input}, got ${r.problem}`);
  return r.url;
};
const problem = (input: string) => {
  const r = normalizeUrl(input);
  if (r.ok) throw new Error(`expected a problem for ${input}, got ${r.url}`);
  return r.problem;
};

describe('normalizeUrl', () => {
  it('adds https:// to host-like input and trims', () => {
    expect(ok('  shop.example/products/a  ')).toBe('https://shop.example/products/a');
    expect(ok('shop.example')).toBe('https://shop.example/');
    expect(ok('//shop.example/x')).toBe('https://shop.example/x');
    expect(ok('shop.example:8080/p')).toBe('https://shop.example:8080/p');
  });

  it('lower-cases the host, strips default ports, fragments and the trailing dot', () => {
    expect(ok('HTTPS://WWW.Shop.Example:443/Products/A#reviews')).toBe('https://www.shop.example/Products/A');
    expect(ok('http://shop.example:80/a')).toBe('http://shop.example/a');
    expect(ok('http://shop.example:8080/a')).toBe('http://shop.example:8080/a');
    expect(ok('https://shop.example./a')).toBe('https://shop.example/a');
  });

  it('strips tracking parameters and keeps the rest of the query as written', () => {
    expect(ok('https://shop.example/p?utm_source=x&variant=123&gclid=abc&UTM_Medium=y&fbclid=z')).toBe(
      'https://shop.example/p?variant=123',
    );
    expect(ok('https://shop.example/p?utm_source=x')).toBe('https://shop.example/p');
    expect(ok('https://shop.example/p?a=1&b=%20two&&c')).toBe('https://shop.example/p?a=1&b=%20two&c');
  });

  it('accepts IP literals', () => {
    expect(ok('http://127.0.0.1:3000/x')).toBe('http://127.0.0.1:3000/x');
    expect(ok('http://[::1]/x')).toBe('http://[::1]/x');
  });

  it('explains what is wrong', () => {
    expect(problem('')).toBe('empty string');
    expect(problem('   ')).toBe('empty string');
    expect(problem('ftp://shop.example/file')).toBe('unsupported scheme ftp');
    expect(problem('javascript:alert(1)')).toBe('unsupported scheme javascript');
    expect(problem('mailto:a@b.example')).toBe('unsupported scheme mailto');
    expect(problem('https://')).toMatch(/hostname|valid/);
    expect(problem('/products/a')).toBe('no hostname');
    expect(problem('localhost/products')).toMatch(/no dot/);
    expect(problem('https://shop..example/')).toMatch(/hostname|valid/);
    expect(problem('https://-bad-.example/')).toMatch(/invalid hostname/);
    expect(problem('https://user:pw@shop.example/')).toMatch(/credentials/);
    expect(problem(`https://shop.example/${'a'.repeat(9000)}`)).toMatch(/longer/);
    expect(problem('not a url at all')).toBeTruthy();
    expect(problem('https://shop.example/\u0000')).toMatch(/control/);
  });

  it('never throws on odd input', () => {
    for (const input of [
      'http://[::g]/',
      'https://%',
      'http://a b.example/',
      '::::',
      'https://999.999.999.999/',
      '%%%.com',
    ]) {
      expect(() => normalizeUrl(input)).not.toThrow();
    }
    expect(normalizeUrl(undefined as unknown as string).ok).toBe(false);
  });
});

describe('vendorKey', () => {
  it('is the lower-case hostname without a leading www.', () => {
    expect(vendorKey('www.Shop.example')).toBe('shop.example');
    expect(vendorKey('https://WWW.shop.example/products/x?y=1')).toBe('shop.example');
    expect(vendorKey('shop.example')).toBe('shop.example');
    expect(vendorKey('https://store.shop.example')).toBe('store.shop.example');
    expect(vendorKey('shopify-apparel.test:8080')).toBe('shopify-apparel.test');
  });
  it('is null when there is no host', () => {
    expect(vendorKey('')).toBeNull();
    expect(vendorKey('ftp://shop.example')).toBeNull();
    expect(vendorKey('nodot')).toBeNull();
  });
});

describe('helpers', () => {
  it('isTrackingParam and hostOf', () => {
    expect(isTrackingParam('utm_campaign')).toBe(true);
    expect(isTrackingParam('variant')).toBe(false);
    expect(hostOf('https://A.example/x')).toBe('a.example');
    expect(hostOf('nope')).toBeNull();
  });
});
