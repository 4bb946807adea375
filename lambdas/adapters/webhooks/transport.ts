// Outbound webhook POSTs under the outbound rules of extraction: the SSRF guard of the fetcher
// (lambdas/adapters/http-fetch/ssrf.ts) checks the address connected to, inside the socket's DNS
// lookup; IP literals are checked up front; PDS_RESOLVE hosts go to their mapped address over
// plain HTTP (as the fetcher does); redirects are not followed. `allowPrivate`
// (PDS_WEBHOOK_ALLOW_PRIVATE) lifts the address rule for local development only.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import type { WebhookResponse, WebhookTransport } from '../../ports/webhooks';
import { DELIVERY_TIMEOUT_MS } from '../../domain/webhooks/model';
import { createGuardedLookup, isBlockedIp } from '../http-fetch/ssrf';

export interface WebhookTransportOptions {
  /** PDS_RESOLVE: host -> "ip:port" (that host and its www. form). */
  resolve?: Record<string, string>;
  allowPrivate?: boolean;
  timeoutMs?: number;
  /** How long the start operation's DNS check may take before the target is accepted as is. */
  dnsCheckTimeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export function createWebhookTransport(options: WebhookTransportOptions = {}): WebhookTransport {
  const resolveMap = new Map(
    Object.entries(options.resolve ?? {}).map(([host, address]) => [host.toLowerCase(), address]),
  );
  const allowPrivate = options.allowPrivate ?? false;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const guardedLookup = createGuardedLookup();

  const mappedAddress = (host: string) =>
    resolveMap.get(host) ?? (host.startsWith('www.') ? resolveMap.get(host.slice(4)) : undefined);

  /** Checks that need no network: scheme, credentials, literal and reserved names. */
  function staticRefusal(raw: string): { refusal: string } | { url: URL } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { refusal: 'must be an absolute http(s) URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { refusal: 'must be an absolute http(s) URL' };
    if (url.username || url.password) return { refusal: 'must not carry credentials' };
    const host = url.hostname.toLowerCase();
    if (allowPrivate || mappedAddress(host)) return { url };
    const literal = host.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(literal)) {
      return isBlockedIp(literal) ? { refusal: `must not target a non-public address (${literal})` } : { url };
    }
    if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
      return { refusal: `must not target a non-public host (${host})` };
    }
    return { url };
  }

  return {
    async refusal(raw) {
      const checked = staticRefusal(raw);
      if ('refusal' in checked) return checked.refusal;
      const host = checked.url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
      if (allowPrivate || mappedAddress(host) || ipaddr.isValid(host)) return null;
      // A name that resolves to a non-public address is refused now; one that does not resolve
      // (yet) is accepted: every attempt checks the address it connects to.
      const addresses = await Promise.race([
        dns.promises.lookup(host, { all: true }).catch(() => []),
        new Promise<[]>((resolve) => setTimeout(() => resolve([]), options.dnsCheckTimeoutMs ?? 2000).unref()),
      ]);
      const blocked = addresses.find((a) => isBlockedIp(a.address));
      return blocked ? `must not target a non-public address (${host} resolves to ${blocked.address})` : null;
    },

    post(raw, headers, body) {
      const checked = staticRefusal(raw);
      if ('refusal' in checked) return Promise.reject(new Error(`webhook url ${checked.refusal}`));
      const url = checked.url;
      const mapped = mappedAddress(url.hostname.toLowerCase());
      const target = mapped ? new URL(`http://${mapped}${url.pathname}${url.search}`) : url;
      const client = target.protocol === 'https:' ? https : http;
      return new Promise<WebhookResponse>((resolve, reject) => {
        const request = client.request(
          target,
          {
            method: 'POST',
            headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
            timeout: timeoutMs,
            // The PDS_RESOLVE target is an address literal (no lookup); everything else is guarded.
            ...(allowPrivate || mapped ? {} : { lookup: guardedLookup as never }),
            agent: false,
          },
          (response) => {
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > MAX_RESPONSE_BYTES) response.destroy();
            });
            const done = () => resolve({ status: response.statusCode ?? 0 });
            response.on('end', done);
            response.on('close', done);
            response.on('error', done);
          },
        );
        const timer = setTimeout(() => request.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
        timer.unref();
        request.on('timeout', () => request.destroy(new Error(`no response within ${timeoutMs} ms`)));
        request.on('error', (error) => reject(new Error(describe(error))));
        request.on('close', () => clearTimeout(timer));
        request.end(body);
      });
    },
  };
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'EBLOCKEDADDRESS') return `refused: ${error.message}`;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
