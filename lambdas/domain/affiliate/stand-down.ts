// Stand-down: a URL that already carries an affiliate network's tracking is never re-wrapped
// (the networks' own rule: the first network's click keeps the commission, and double tracking
// breaks attribution). Signals: the stand-down parameters `afsrc=1` and `affsource`, the click
// ids networks append on landing, and the networks' redirect hosts.
import { normalizeDomain } from './domains';
import { registrableDomain } from './merchants';

/** Registrable domains of affiliate networks' click and redirect services. */
export const NETWORK_REDIRECT_DOMAINS: ReadonlySet<string> = new Set([
  'wild.link', // Wildfire
  'skimresources.com',
  'redirectingat.com', // Skimlinks
  'viglink.com',
  'sovrn.co', // Sovrn Commerce (VigLink)
  'linksynergy.com', // Rakuten Advertising
  'anrdoezrs.net',
  'dpbolvw.net',
  'jdoqocy.com',
  'kqzyfj.com',
  'tkqlhce.com',
  'emjcd.com',
  'qksrv.net', // CJ
  'awin1.com',
  'zenaps.com', // Awin
  'shareasale.com', // ShareASale
  'sjv.io',
  'pxf.io',
  '7eer.net',
  'evyy.net',
  'ojrq.net', // Impact
  'prf.hn', // Partnerize
  'pjtra.com',
  'pntra.com',
  'pntrs.com',
  'pntrac.com',
  'gopjn.com',
  'pjatr.com', // Pepperjam
  'avantlink.com', // AvantLink
  'flexlinkspro.com', // FlexOffers
  'webgains.com', // Webgains
  'tradedoubler.com', // Tradedoubler
  'admitad.com', // Admitad
  'amzn.to', // Amazon Associates short links
  'shopstyle.it',
  'rstyle.me', // ShopStyle Collective
  'liketk.it', // LTK
  'howl.me', // Howl
]);

/** Click ids a network appends when it lands a tracked visitor on the merchant (lower case). */
const NETWORK_CLICK_PARAMS: ReadonlySet<string> = new Set([
  'affsource',
  'irclickid',
  'cjevent',
  'ransiteid',
  'awc',
  'sscid',
]);

/**
 * Why `url` must not be re-wrapped, or null when it carries no network's tracking.
 * `ownHosts` are the hosts of our own link template: a link of ours is never wrapped again.
 */
export function standDownSignal(url: URL, ownHosts: ReadonlySet<string> = new Set()): string | null {
  const host = normalizeDomain(url.hostname);
  if (ownHosts.has(host)) return `already a link of this network (${host})`;
  const registrable = registrableDomain(host);
  if (registrable && NETWORK_REDIRECT_DOMAINS.has(registrable)) return `affiliate network redirect host ${registrable}`;
  for (const [name, value] of url.searchParams) {
    const key = name.toLowerCase();
    if (key === 'afsrc' && value.trim() === '1') return 'stand-down parameter afsrc=1';
    if (NETWORK_CLICK_PARAMS.has(key)) return `affiliate tracking parameter ${key}`;
  }
  return null;
}
