// Deterministic identifiers: a UUID v5 (SHA-1, RFC 4122 layout) of a name in our namespace, so
// the same product URL always gets the same id across runs and machines.
import { createHash } from 'node:crypto';

const NAMESPACE = Buffer.from('6f1b2a8e4c3d4e5fa7b8c9d0e1f2a3b4', 'hex');

export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const TRACKING =
  /^(utm_\w+|gclid|fbclid|msclkid|mc_cid|mc_eid|ref|ref_|refccid|searchidx|guid|osp|kwds|rfmt|_pos|_sid|_ss|_psq|srsltid|spm|scm|cmpid|trk|tracking|affid|aff|afsrc|clickid)$/i;

/** The URL without tracking parameters or fragment, host lower-case, no trailing "?". */
export function canonicalProductUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.hash = '';
    for (const key of [...url.searchParams.keys()]) if (TRACKING.test(key)) url.searchParams.delete(key);
    url.hostname = url.hostname.toLowerCase();
    return url.href.replace(/\?$/, '');
  } catch {
    return raw;
  }
}
