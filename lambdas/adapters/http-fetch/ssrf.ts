// SSRF guard: outbound fetches reach only public unicast addresses. The check runs inside the
// socket's DNS lookup, so the address checked is the address connected to (no TOCTOU window
// between a pre-check and the connect). IP-literal hosts skip DNS and are checked up front.
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

export const BLOCKED_ADDRESS_CODE = 'EBLOCKEDADDRESS';

/** True for private, loopback, link-local (incl. 169.254.169.254), CGNAT, ULA, multicast, reserved, mapped... */
export function isBlockedIp(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true; // not an address we understand: never connect to it
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d and friends reach the embedded IPv4 address: judge that one.
    if (v6.isIPv4MappedAddress()) return isBlockedIp(v6.toIPv4Address().toString());
  }
  return parsed.range() !== 'unicast';
}

export function blockedAddressError(hostname: string, address: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to a non-public address (${address})`);
  error.code = BLOCKED_ADDRESS_CODE;
  return error;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup replacement for sockets (got's dnsLookup): resolves all addresses and refuses the
 * connection when any of them is non-public (a mixed answer is a DNS-rebinding tell). It runs for
 * every new connection, so each redirect hop and each attempt is judged on its own answer.
 */
export function createGuardedLookup() {
  return function guardedLookup(
    hostname: string,
    options: LookupOptions | LookupCallback,
    maybeCallback?: LookupCallback,
  ): void {
    const callback = (typeof options === 'function' ? options : maybeCallback) as LookupCallback;
    const opts: LookupOptions = typeof options === 'function' ? {} : (options ?? {});
    dns.lookup(hostname, { family: opts.family, hints: opts.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!addresses.length) {
        const empty: NodeJS.ErrnoException = new Error(`no addresses for ${hostname}`);
        empty.code = 'ENOTFOUND';
        return callback(empty, []);
      }
      const blocked = addresses.find((a) => isBlockedIp(a.address));
      if (blocked) return callback(blockedAddressError(hostname, blocked.address), []);
      if (opts.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * Resolves a hostname through the guard (for proxy tunnels that must name an IP). `trusted`
 * addresses (the PDS_RESOLVE targets, which the fetcher connects to as literals) pass; a name is
 * judged like any other, whatever it resolves to.
 */
export function guardedResolve(hostname: string, trusted: ReadonlySet<string> = new Set()): Promise<string> {
  if (ipaddr.isValid(hostname.replace(/^\[|\]$/g, ''))) {
    const literal = hostname.replace(/^\[|\]$/g, '');
    return trusted.has(literal) || !isBlockedIp(literal)
      ? Promise.resolve(literal)
      : Promise.reject(blockedAddressError(hostname, literal));
  }
  const lookup = createGuardedLookup();
  return new Promise((resolve, reject) =>
    lookup(hostname, {}, (error, address) => (error ? reject(error) : resolve(address as string))),
  );
}
