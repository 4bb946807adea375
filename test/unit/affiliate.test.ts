// Affiliate links without engines: merchant matching by registrable domain, stand-down, the link
// template, and the use-case over an in-memory device store.
import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_MERCHANTS,
  createMerchantDirectory,
  parseMerchantList,
} from '../../lambdas/domain/affiliate/merchants';
import { standDownSignal } from '../../lambdas/domain/affiliate/stand-down';
import { compileLinkTemplate, DEFAULT_LINK_TEMPLATE } from '../../lambdas/domain/affiliate/template';
import { createAffiliate } from '../../lambdas/domain/affiliate/links';
import type { AffiliateDeviceStore } from '../../lambdas/ports/affiliate';
import type { ProductRecord } from '../../lambdas/domain/extraction/types';
import { loadConfig } from '../../lambdas/config';

const directory = createMerchantDirectory(BUILT_IN_MERCHANTS);

/** A device store with the adapter's semantics: the first create wins, later ones get it back. */
function memoryDevices() {
  const stored = new Map<string, string>();
  let creates = 0;
  const store: AffiliateDeviceStore = {
    async get(org) {
      return stored.get(org) ?? null;
    },
    async create(org, deviceId) {
      creates++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (!stored.has(org)) stored.set(org, deviceId);
      return stored.get(org)!;
    },
  };
  return { store, stored, creates: () => creates };
}

let counter = 0;
const affiliateWith = (devices = memoryDevices(), template = DEFAULT_LINK_TEMPLATE) =>
  createAffiliate({
    merchants: directory,
    template: compileLinkTemplate(template),
    devices: devices.store,
    now: () => new Date(0),
    newDeviceId: () => `dev${++counter}`,
  });

describe('merchant directory', () => {
  it('matches by registrable domain: www., subdomains, alternates, case and trailing dots', () => {
    expect(directory.merchantFor('allbirds.com')?.id).toBe('5001');
    expect(directory.merchantFor('WWW.Allbirds.COM.')?.id).toBe('5001');
    expect(directory.merchantFor('shop.allbirds.com')?.id).toBe('5001');
    expect(directory.merchantFor('www.allbirds.co.uk')?.domain).toBe('allbirds.com');
    expect(directory.merchantFor('uk.gymshark.com')?.domain).toBe('gymshark.com');
  });
  it('never matches look-alikes, other registrable domains, suffixes or IPs', () => {
    for (const host of [
      'notallbirds.com',
      'allbirds.com.evil.example',
      'allbirds.co',
      'com',
      'co.uk',
      '127.0.0.1',
      'localhost',
      'allbirds',
    ]) {
      expect(directory.merchantFor(host), host).toBeNull();
    }
  });
  it('stops at the registrable domain of private suffixes (a merchant on github.io owns only its own name)', () => {
    const list = createMerchantDirectory(parseMerchantList(['brand.github.io']));
    expect(list.isMerchant('brand.github.io')).toBe(true);
    expect(list.isMerchant('www.brand.github.io')).toBe(true);
    expect(list.isMerchant('other.github.io')).toBe(false);
  });
  it('gives every merchant an id: given, or the domain', () => {
    const list = parseMerchantList([
      { domain: 'a.example', id: 77 },
      'https://www.B.example/x',
      { domain: 'c.example', id: 'c-1', alternate_domains: ['c.example.de'] },
    ]);
    expect(list.map((m) => m.id)).toEqual(['77', 'b.example', 'c-1']);
    expect(new Set(BUILT_IN_MERCHANTS.map((m) => m.id)).size).toBe(BUILT_IN_MERCHANTS.length);
  });
  it('rejects public suffixes, IPs, duplicate ids and bad shapes, naming the entry', () => {
    expect(() => parseMerchantList(['co.uk'])).toThrow(/entry 0.*registrable/);
    expect(() => parseMerchantList(['a.example', '10.0.0.1'])).toThrow(/entry 1/);
    expect(() =>
      parseMerchantList([
        { domain: 'a.example', id: 'x' },
        { domain: 'b.example', id: 'x' },
      ]),
    ).toThrow(/entry 1.*twice/);
    expect(() => parseMerchantList([{ domain: 'a.example', id: {} }])).toThrow(/id must be/);
    expect(() => parseMerchantList([{ domain: 'a.example', alternate_domains: 'b.example' }])).toThrow(
      /alternate_domains/,
    );
  });
});

describe('stand-down', () => {
  const signal = (url: string, own?: Set<string>) => standDownSignal(new URL(url), own);
  it('sees the stand-down parameters, whatever their case', () => {
    expect(signal('https://allbirds.com/p?afsrc=1')).toMatch(/afsrc=1/);
    expect(signal('https://allbirds.com/p?AFSRC=1&x=2')).toMatch(/afsrc=1/);
    expect(signal('https://allbirds.com/p?affsource=wildfire')).toMatch(/affsource/);
    expect(signal('https://allbirds.com/p?irclickid=abc')).toMatch(/irclickid/);
  });
  it('sees network redirect hosts by registrable domain', () => {
    expect(signal('https://click.linksynergy.com/deeplink?id=1&murl=https%3A%2F%2Fnike.com')).toMatch(
      /linksynergy\.com/,
    );
    expect(signal('https://goto.target.sjv.io/c/1/2/3')).toMatch(/sjv\.io/);
    expect(signal('https://wild.link/e?c=1&d=2&url=x')).toMatch(/wild\.link/);
  });
  it('sees links of its own template host', () => {
    expect(signal('https://go.pds-affiliate.example/e?c=1', new Set(['go.pds-affiliate.example']))).toMatch(
      /already a link/,
    );
  });
  it('leaves ordinary URLs alone (afsrc=0, utm parameters, merchant subdomains)', () => {
    expect(signal('https://allbirds.com/p?afsrc=0')).toBeNull();
    expect(signal('https://allbirds.com/p?utm_source=newsletter&ref=home')).toBeNull();
    expect(signal('https://shop.allbirds.com/p')).toBeNull();
  });
});

describe('link template', () => {
  it('renders merchant id, device id and the URL-encoded deep link', () => {
    const template = compileLinkTemplate(DEFAULT_LINK_TEMPLATE);
    const link = template.render({ merchant_id: '5001', device_id: 'abc', url: 'https://allbirds.com/p?a=1&b=2#x' });
    expect(link).toBe(
      'https://go.pds-affiliate.example/e?c=5001&d=abc&url=https%3A%2F%2Fallbirds.com%2Fp%3Fa%3D1%26b%3D2%23x',
    );
    expect(new URL(link).searchParams.get('url')).toBe('https://allbirds.com/p?a=1&b=2#x');
    expect(template.host).toBe('go.pds-affiliate.example');
  });
  it('accepts another layout and rejects broken templates at load', () => {
    expect(
      compileLinkTemplate('https://t.example/{device_id}/{merchant_id}?to={url}').render({
        merchant_id: 'm',
        device_id: 'd',
        url: 'u/v',
      }),
    ).toBe('https://t.example/d/m?to=u%2Fv');
    expect(() => compileLinkTemplate('https://t.example/e?d={device_id}')).toThrow(/\{url\}/);
    expect(() => compileLinkTemplate('https://t.example/e?url={url}')).toThrow(/\{device_id\}/);
    expect(() => compileLinkTemplate('https://t.example/e?d={device_id}&u={url}&x={org}')).toThrow(
      /unknown placeholder \{org\}/,
    );
    expect(() => compileLinkTemplate('/e?d={device_id}&u={url}')).toThrow(/absolute URL/);
    expect(() => compileLinkTemplate('ftp://t.example/e?d={device_id}&u={url}')).toThrow(/http/);
    expect(() => compileLinkTemplate('https://{merchant_id}.t.example/e?d={device_id}&u={url}')).toThrow(/host/);
  });
  it('is a setting: the default, a replacement, and a bad value failing the config load', () => {
    expect(loadConfig({}).affiliateLinkTemplate).toBe(DEFAULT_LINK_TEMPLATE);
    expect(
      loadConfig({ PDS_AFFILIATE_LINK_TEMPLATE: 'https://t.example/{device_id}?u={url}' }).affiliateLinkTemplate,
    ).toBe('https://t.example/{device_id}?u={url}');
    expect(() => loadConfig({ PDS_AFFILIATE_LINK_TEMPLATE: 'https://t.example/?u={url}' })).toThrow(/device_id/);
  });
});

describe('affiliate use-case', () => {
  it('links supported URLs and says why for every other one, in input order', async () => {
    const affiliate = affiliateWith();
    const urls = [
      'https://www.allbirds.com/products/mens-wool-runners',
      'http://allbirds.com/products/x',
      'allbirds.co.uk/products/y',
      'https://shop.unknown-store.example/p/1',
      'not a url',
      'mailto:someone@allbirds.com',
      'https://allbirds.com/products/z?afsrc=1',
      'https://click.linksynergy.com/deeplink?murl=https%3A%2F%2Fnike.com',
      'https://www.allbirds.com/products/mens-wool-runners',
    ];
    const out = await affiliate.linkUrls('org-a', urls);
    expect(out.total_processed).toBe(9);
    expect(out.successful).toBe(4);
    expect(out.failed).toBe(5);
    expect(out.results.map((r) => (r.success ? 'ok' : r.reason))).toEqual([
      'ok',
      'ok',
      'ok',
      'merchant_not_in_network',
      'malformed_url',
      'malformed_url',
      'stand_down',
      'stand_down',
      'ok',
    ]);
    expect(out.results.map((r) => r.original_url)).toEqual(urls);
    const deviceId = out.results[0].device_id;
    expect(out.results.every((r) => r.device_id === deviceId)).toBe(true);
    const first = new URL(out.results[0].network_link!);
    expect(first.searchParams.get('c')).toBe('5001');
    expect(first.searchParams.get('d')).toBe(deviceId);
    expect(first.searchParams.get('url')).toBe('https://www.allbirds.com/products/mens-wool-runners');
    // A scheme-less URL links to its https form.
    expect(new URL(out.results[2].network_link!).searchParams.get('url')).toBe('https://allbirds.co.uk/products/y');
    for (const failed of out.results.filter((r) => !r.success)) expect(failed.network_link).toBeNull();
  });

  it('creates one device id per organization, once, even for concurrent first calls', async () => {
    const devices = memoryDevices();
    const one = affiliateWith(devices);
    const other = affiliateWith(devices); // a second process on the same store
    const ids = await Promise.all([one.deviceIdFor('org-a'), other.deviceIdFor('org-a'), one.deviceIdFor('org-a')]);
    expect(new Set(ids).size).toBe(1);
    expect(devices.stored.get('org-a')).toBe(ids[0]);
    expect(devices.creates()).toBe(2); // once per process; the second lost the race and read the winner
    const b = await one.deviceIdFor('org-b');
    expect(b).not.toBe(ids[0]);
    expect(await affiliateWith(devices).deviceIdFor('org-a')).toBe(ids[0]); // a restart reads it back
  });

  it('uses random device ids that carry nothing of the organization', async () => {
    const affiliate = createAffiliate({
      merchants: directory,
      template: compileLinkTemplate(DEFAULT_LINK_TEMPLATE),
      devices: memoryDevices().store,
      now: () => new Date(),
    });
    const a = await affiliate.deviceIdFor('acme-corp');
    const b = await affiliate.deviceIdFor('acme-corp-2');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('acme');
  });

  it('fills affiliate_link on a record and its variants for supported merchants only', async () => {
    const affiliate = affiliateWith();
    const linker = await affiliate.recordLinker('org-a');
    const variant = (url: string | null) => ({
      id: 'v',
      sku: null,
      url,
      title: null,
      option1: null,
      option2: null,
      option3: null,
      is_available: true,
      price: { currency: 'USD', current_value: 1, compare_at_value: null },
      image: null,
      affiliate_link: null,
    });
    const record = {
      url: 'https://www.allbirds.com/products/runner',
      variants: [variant('https://www.allbirds.com/products/runner?variant=1'), variant(null)],
      affiliate_link: null,
    } as unknown as ProductRecord;
    const linked = linker(record);
    expect(new URL(linked.affiliate_link!).searchParams.get('url')).toBe('https://www.allbirds.com/products/runner');
    expect(new URL(linked.variants[0].affiliate_link!).searchParams.get('url')).toBe(
      'https://www.allbirds.com/products/runner?variant=1',
    );
    expect(linked.variants[1].affiliate_link).toBe(linked.affiliate_link);
    expect(record.affiliate_link).toBeNull(); // the stored record is not changed
    const other = linker({
      ...record,
      url: 'https://shop.unknown-store.example/p',
      variants: [variant('https://shop.unknown-store.example/p?v=1')],
    });
    expect(other.affiliate_link).toBeNull();
    expect(other.variants[0].affiliate_link).toBeNull();
  });
});
