import { describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  checkKey,
  generateKey,
  hashKey,
  parseBootstrapSpec,
  parseScopes,
} from '../../lambdas/domain/accounts/keys';

describe('API keys', () => {
  it('hashes with SHA-256 and generates long random keys', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const a = generateKey();
    expect(a).toMatch(/^pds_[A-Za-z0-9_-]{43}$/);
    expect(generateKey()).not.toBe(a);
    expect(checkKey('short')).toMatch(/at least 16/);
    expect(checkKey('has space in it 1234')).toMatch(/printable/);
    expect(checkKey('0123456789abcdef')).toBeNull();
  });

  it('parses scope lists; none means all six', () => {
    expect(parseScopes(undefined)).toEqual(ALL_SCOPES);
    expect(parseScopes('')).toEqual(ALL_SCOPES);
    expect(parseScopes('usage,search')).toEqual(['search', 'usage']);
    expect(parseScopes('catalog+crawl')).toEqual(['catalog', 'crawl']);
    expect(() => parseScopes('search,admin')).toThrow(/admin/);
  });

  it('parses PDS_BOOTSTRAP_KEYS and names the bad entry', () => {
    expect(parseBootstrapSpec(undefined)).toEqual([]);
    expect(parseBootstrapSpec(' key-aaaaaaaaaaaaaaaa:acme , key-bbbbbbbbbbbbbbbb:beta:search+usage ')).toEqual([
      { key: 'key-aaaaaaaaaaaaaaaa', org: 'acme', scopes: [...ALL_SCOPES] },
      { key: 'key-bbbbbbbbbbbbbbbb', org: 'beta', scopes: ['search', 'usage'] },
    ]);
    expect(() => parseBootstrapSpec('shortkey:acme')).toThrow(/entry 1: API keys must be at least 16/);
    expect(() => parseBootstrapSpec('key-aaaaaaaaaaaaaaaa:acme,key-bbbbbbbbbbbbbbbb')).toThrow(/entry 2/);
    expect(() => parseBootstrapSpec('key-aaaaaaaaaaaaaaaa:ac me')).toThrow(/organization/);
    expect(() => parseBootstrapSpec('key-aaaaaaaaaaaaaaaa:acme:search+root')).toThrow(/root/);
  });
});
