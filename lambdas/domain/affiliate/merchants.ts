// The affiliate network's merchant list: which store domains can carry tracking links. A
// built-in list ships with the service; Config.affiliateMerchantsFile (PDS_AFFILIATE_MERCHANTS)
// replaces it with a JSON array whose entries are a domain string or
// { "domain": string, "alternate_domains"?: string[] } (merchant feeds list alternates).

export interface Merchant {
  domain: string;
  alternateDomains: string[];
}

export const BUILT_IN_MERCHANTS: readonly Merchant[] = [
  { domain: 'allbirds.com', alternateDomains: ['allbirds.co.uk', 'allbirds.ca'] },
  { domain: 'gymshark.com', alternateDomains: ['uk.gymshark.com'] },
  { domain: 'everlane.com', alternateDomains: [] },
  { domain: 'bombas.com', alternateDomains: [] },
  { domain: 'glossier.com', alternateDomains: ['uk.glossier.com'] },
  { domain: 'kyliecosmetics.com', alternateDomains: [] },
  { domain: 'fashionnova.com', alternateDomains: [] },
  { domain: 'brooklinen.com', alternateDomains: [] },
  { domain: 'mvmt.com', alternateDomains: [] },
  { domain: 'rothys.com', alternateDomains: [] },
  { domain: 'outdoorvoices.com', alternateDomains: [] },
  { domain: 'patagonia.com', alternateDomains: ['eu.patagonia.com'] },
  { domain: 'nike.com', alternateDomains: [] },
  { domain: 'adidas.com', alternateDomains: ['adidas.co.uk', 'adidas.de'] },
  { domain: 'target.com', alternateDomains: [] },
  { domain: 'walmart.com', alternateDomains: [] },
  { domain: 'bestbuy.com', alternateDomains: [] },
  { domain: 'sephora.com', alternateDomains: [] },
  { domain: 'ulta.com', alternateDomains: [] },
  { domain: 'nordstrom.com', alternateDomains: [] },
  { domain: 'macys.com', alternateDomains: [] },
  { domain: 'zappos.com', alternateDomains: [] },
  { domain: 'etsy.com', alternateDomains: [] },
  { domain: 'wayfair.com', alternateDomains: ['wayfair.co.uk', 'wayfair.ca'] },
  { domain: 'homedepot.com', alternateDomains: [] },
];

const normalizeDomain = (raw: string): string =>
  raw
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '')
    .replace(/^www\./, '');

/** Parses the merchant file's JSON; throws with the offending entry named. */
export function parseMerchantList(json: unknown): Merchant[] {
  if (!Array.isArray(json)) throw new Error('affiliate merchant list must be a JSON array');
  return json.map((entry, index) => {
    if (typeof entry === 'string' && entry.trim()) return { domain: normalizeDomain(entry), alternateDomains: [] };
    if (entry && typeof entry === 'object' && typeof (entry as { domain?: unknown }).domain === 'string') {
      const alternates = (entry as { alternate_domains?: unknown }).alternate_domains;
      if (alternates !== undefined && !(Array.isArray(alternates) && alternates.every((a) => typeof a === 'string'))) {
        throw new Error(`affiliate merchant entry ${index}: alternate_domains must be an array of strings`);
      }
      return {
        domain: normalizeDomain((entry as { domain: string }).domain),
        alternateDomains: ((alternates as string[] | undefined) ?? []).map(normalizeDomain),
      };
    }
    throw new Error(`affiliate merchant entry ${index}: expected a domain string or { "domain": string }`);
  });
}

export interface MerchantDirectory {
  /** The merchant whose domain (or an alternate) is `host` or a parent domain of it. */
  merchantFor(host: string): Merchant | null;
  isMerchant(host: string): boolean;
}

export function createMerchantDirectory(merchants: readonly Merchant[]): MerchantDirectory {
  const byDomain = new Map<string, Merchant>();
  for (const merchant of merchants) {
    for (const domain of [merchant.domain, ...merchant.alternateDomains]) if (domain) byDomain.set(domain, merchant);
  }
  const merchantFor = (host: string): Merchant | null => {
    const labels = normalizeDomain(host).split('.');
    // shop.example.co.uk matches example.co.uk; a bare TLD never matches.
    for (let i = 0; i < labels.length - 1; i++) {
      const hit = byDomain.get(labels.slice(i).join('.'));
      if (hit) return hit;
    }
    return null;
  };
  return { merchantFor, isMerchant: (host) => merchantFor(host) !== null };
}
