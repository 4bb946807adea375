// The affiliate network's merchant list: which store domains can carry tracking links. A
// built-in list ships with the service; Config.affiliateMerchantsFile (PDS_AFFILIATE_MERCHANTS)
// replaces it with a JSON array whose entries are a domain string or
// { "domain": string, "id"?: string | number, "alternate_domains"?: string[] } (merchant feeds
// list alternates). Hosts match by registrable domain (Public Suffix List, via tldts), so
// `shop.example.co.uk` is example.co.uk's and `foo.github.io` is never github.io's.
import { parse } from 'tldts';
import { normalizeDomain } from './domains';

export interface Merchant {
  /** The network's merchant id, the `{merchant_id}` of the link template. */
  id: string;
  domain: string;
  alternateDomains: string[];
}

// Ids are fixed here (not positions), so reordering the list never changes a link.
export const BUILT_IN_MERCHANTS: readonly Merchant[] = [
  { id: '5001', domain: 'allbirds.com', alternateDomains: ['allbirds.co.uk', 'allbirds.ca'] },
  { id: '5002', domain: 'gymshark.com', alternateDomains: ['uk.gymshark.com'] },
  { id: '5003', domain: 'everlane.com', alternateDomains: [] },
  { id: '5004', domain: 'bombas.com', alternateDomains: [] },
  { id: '5005', domain: 'glossier.com', alternateDomains: ['uk.glossier.com'] },
  { id: '5006', domain: 'kyliecosmetics.com', alternateDomains: [] },
  { id: '5007', domain: 'fashionnova.com', alternateDomains: [] },
  { id: '5008', domain: 'brooklinen.com', alternateDomains: [] },
  { id: '5009', domain: 'mvmt.com', alternateDomains: [] },
  { id: '5010', domain: 'rothys.com', alternateDomains: [] },
  { id: '5011', domain: 'outdoorvoices.com', alternateDomains: [] },
  { id: '5012', domain: 'patagonia.com', alternateDomains: ['eu.patagonia.com'] },
  { id: '5013', domain: 'nike.com', alternateDomains: [] },
  { id: '5014', domain: 'adidas.com', alternateDomains: ['adidas.co.uk', 'adidas.de'] },
  { id: '5015', domain: 'target.com', alternateDomains: [] },
  { id: '5016', domain: 'walmart.com', alternateDomains: [] },
  { id: '5017', domain: 'bestbuy.com', alternateDomains: [] },
  { id: '5018', domain: 'sephora.com', alternateDomains: [] },
  { id: '5019', domain: 'ulta.com', alternateDomains: [] },
  { id: '5020', domain: 'nordstrom.com', alternateDomains: [] },
  { id: '5021', domain: 'macys.com', alternateDomains: [] },
  { id: '5022', domain: 'zappos.com', alternateDomains: [] },
  { id: '5023', domain: 'etsy.com', alternateDomains: [] },
  { id: '5024', domain: 'wayfair.com', alternateDomains: ['wayfair.co.uk', 'wayfair.ca'] },
  { id: '5025', domain: 'homedepot.com', alternateDomains: [] },
];

/** The registrable domain (eTLD+1, private suffixes included) of a normalized host; null for IPs and bare suffixes. */
export function registrableDomain(host: string): string | null {
  const parsed = parse(host, { allowPrivateDomains: true });
  return parsed.isIp ? null : parsed.domain;
}

function checkedDomain(raw: string, where: string): string {
  const domain = normalizeDomain(raw);
  if (!domain || !registrableDomain(domain))
    throw new Error(`${where}: "${raw}" is not a registrable domain (a public suffix, an IP address or empty)`);
  return domain;
}

/** Parses the merchant file's JSON; throws with the offending entry named. */
export function parseMerchantList(json: unknown): Merchant[] {
  if (!Array.isArray(json)) throw new Error('affiliate merchant list must be a JSON array');
  const ids = new Set<string>();
  return json.map((entry, index) => {
    const where = `affiliate merchant entry ${index}`;
    let merchant: Merchant;
    if (typeof entry === 'string' && entry.trim()) {
      const domain = checkedDomain(entry, where);
      merchant = { id: domain, domain, alternateDomains: [] };
    } else if (entry && typeof entry === 'object' && typeof (entry as { domain?: unknown }).domain === 'string') {
      const {
        domain: rawDomain,
        alternate_domains: alternates,
        id,
      } = entry as { domain: string; alternate_domains?: unknown; id?: unknown };
      if (alternates !== undefined && !(Array.isArray(alternates) && alternates.every((a) => typeof a === 'string'))) {
        throw new Error(`${where}: alternate_domains must be an array of strings`);
      }
      if (
        id !== undefined &&
        !((typeof id === 'string' && id.trim()) || (typeof id === 'number' && Number.isSafeInteger(id)))
      ) {
        throw new Error(`${where}: id must be a non-empty string or an integer`);
      }
      const domain = checkedDomain(rawDomain, where);
      merchant = {
        // Without an id the domain is one: stable across restarts and list edits.
        id: id === undefined ? domain : String(id).trim(),
        domain,
        alternateDomains: ((alternates as string[] | undefined) ?? []).map((a) => checkedDomain(a, where)),
      };
    } else {
      throw new Error(`${where}: expected a domain string or { "domain": string }`);
    }
    if (ids.has(merchant.id)) throw new Error(`${where}: merchant id "${merchant.id}" is used twice`);
    ids.add(merchant.id);
    return merchant;
  });
}

export interface MerchantDirectory {
  /**
   * The merchant whose domain (or an alternate) is `host` or a parent of it within the same
   * registrable domain; `www.` and letter case never matter.
   */
  merchantFor(host: string): Merchant | null;
  isMerchant(host: string): boolean;
}

export function createMerchantDirectory(merchants: readonly Merchant[]): MerchantDirectory {
  const byDomain = new Map<string, Merchant>();
  for (const merchant of merchants) {
    for (const domain of [merchant.domain, ...merchant.alternateDomains])
      if (domain) byDomain.set(normalizeDomain(domain), merchant);
  }
  const merchantFor = (host: string): Merchant | null => {
    const normalized = normalizeDomain(host);
    const registrable = registrableDomain(normalized);
    if (!registrable) return null;
    // Most specific first (uk.gymshark.com before gymshark.com), never above the registrable domain.
    let candidate = normalized;
    for (;;) {
      const hit = byDomain.get(candidate);
      if (hit) return hit;
      if (candidate.length <= registrable.length) return null;
      candidate = candidate.slice(candidate.indexOf('.') + 1);
    }
  };
  return { merchantFor, isMerchant: (host) => merchantFor(host) !== null };
}
