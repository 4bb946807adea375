// URL validation and normalisation for product URLs and store hosts. Pure: used by the API
// layer (v1/v2 URL validation, dedupe) and by the engine before any fetch.

export type NormalizedUrl = { ok: true; url: string } | { ok: false; problem: string };

/**
 * The one URL length limit of every operation (request validation of every family, the start
 * paths, the engine): browsers and CDNs stop near 8 KB, and 1000 such URLs still fit in one
 * request body; longer ones are garbage or an attack, and could not be stored in a table item.
 */
export const MAX_URL_LENGTH = 8192;

/** Query parameters that only track a click and never change the page served. */
const TRACKING_PARAMS = new Set([
  'gclid',
  'fbclid',
  'msclkid',
  'dclid',
  'gbraid',
  'wbraid',
  'yclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
]);

export function isTrackingParam(name: string): boolean {
  const key = name.toLowerCase();
  return key.startsWith('utm_') || TRACKING_PARAMS.has(key);
}

const SCHEME_WITH_SLASHES = /^([a-z][a-z0-9+.-]*):\/\//i;
// "mailto:x", "javascript:alert(1)", but not "shop.example:8080/path" (host:port without scheme).
const SCHEME_ONLY = /^([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))/i;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

export type ParsedUrl = { ok: true; url: URL } | { ok: false; problem: string };

/**
 * The one validation of a customer-supplied URL (extraction, affiliate links): http(s) only, a
 * hostname with a dot (or an IP literal), no credentials, no control characters, at most
 * MAX_URL_LENGTH; a missing scheme means https. The URL is returned as written otherwise.
 */
export function parseHttpUrl(input: string): ParsedUrl {
  if (typeof input !== 'string') return { ok: false, problem: 'not a string' };
  const trimmed = input.trim();
  if (!trimmed) return { ok: false, problem: 'empty string' };
  if (trimmed.length > MAX_URL_LENGTH) return { ok: false, problem: `longer than ${MAX_URL_LENGTH} characters` };
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return { ok: false, problem: 'contains control characters' };

  let candidate = trimmed;
  const withSlashes = SCHEME_WITH_SLASHES.exec(trimmed);
  const schemeOnly = withSlashes ? null : SCHEME_ONLY.exec(trimmed);
  const scheme = (withSlashes?.[1] ?? schemeOnly?.[1])?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== 'http' && scheme !== 'https') return { ok: false, problem: `unsupported scheme ${scheme}` };
    if (!withSlashes) return { ok: false, problem: 'no hostname' };
  } else if (trimmed.startsWith('//')) {
    candidate = `https:${trimmed}`;
  } else if (trimmed.startsWith('/') || trimmed.startsWith('?') || trimmed.startsWith('#')) {
    return { ok: false, problem: 'no hostname' };
  } else {
    candidate = `https://${trimmed}`;
  }

  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, problem: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `unsupported scheme ${url.protocol.replace(/:$/, '')}` };
  }
  if (url.username || url.password) return { ok: false, problem: 'credentials in URL are not allowed' };

  const hostProblem = checkHostname(url.hostname);
  if (hostProblem) return { ok: false, problem: hostProblem };
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.replace(/\.+$/, '');
  return { ok: true, url };
}

/** A product URL for fetching and dedupe: validated, without fragment and tracking parameters. */
export function normalizeUrl(input: string): NormalizedUrl {
  const parsed = parseHttpUrl(input);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  url.hash = '';
  url.search = stripTrackingParams(url.search);
  return { ok: true, url: url.href };
}

function checkHostname(hostname: string): string | null {
  if (!hostname) return 'no hostname';
  if (hostname.startsWith('[')) return null; // IPv6 literal, already validated by URL
  if (IPV4.test(hostname)) return null;
  const host = hostname.replace(/\.+$/, '');
  if (!host) return 'no hostname';
  const labels = host.split('.');
  if (labels.length < 2) return `hostname "${host}" has no dot`;
  for (const label of labels) {
    if (!HOST_LABEL.test(label)) return `invalid hostname "${host}"`;
  }
  if (/^\d+$/.test(labels[labels.length - 1])) return `invalid hostname "${host}"`;
  return null;
}

/** Drops tracking parameters but keeps the rest of the query exactly as written. */
function stripTrackingParams(search: string): string {
  if (!search || search === '?') return '';
  const kept = search
    .slice(1)
    .split('&')
    .filter((pair) => {
      if (!pair) return false;
      const rawName = pair.split('=', 1)[0];
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // Malformed escape: judge the raw name.
      }
      return !isTrackingParam(name);
    });
  return kept.length ? `?${kept.join('&')}` : '';
}

/**
 * The vendor key (DECISIONS): lower-case hostname without a leading `www.`.
 * Accepts a URL, a bare host or host:port; null when no valid host can be read.
 */
export function vendorKey(urlOrHost: string): string | null {
  const normalized = normalizeUrl(urlOrHost);
  if (!normalized.ok) return null;
  const hostname = new URL(normalized.url).hostname;
  const key = hostname.startsWith('www.') ? hostname.slice(4) : hostname;
  return key || null;
}

/** Lower-case hostname of a URL, or null when it does not parse. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}
