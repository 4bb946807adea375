// Host normalization for merchant and link-template domains, apart from merchants.ts so that
// reading the link template (every function's config) does not load the Public Suffix List.

/** Lower-case ASCII (punycode) host without scheme, path, port, trailing dot or leading `www.`. */
export function normalizeDomain(raw: string): string {
  const bare = raw
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^[^@]*@/, '')
    .replace(/:\d*$/, '')
    .replace(/\.+$/, '');
  let host = bare;
  try {
    host = new URL(`http://${bare}`).hostname;
  } catch {
    // Not a host the URL parser accepts: keep the lower-cased text, it will match nothing.
  }
  return host.replace(/^www\./, '');
}
