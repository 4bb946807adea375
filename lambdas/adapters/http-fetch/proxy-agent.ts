// Egress through an HTTP proxy with CONNECT tunnels, for both http and https targets. The
// target host is resolved here through the SSRF guard and the proxy is asked to CONNECT to that
// checked IP, so the proxy cannot be used to reach a private address either.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { guardedResolve } from './ssrf';

type Callback = (error: Error | null, socket?: Socket) => void;

function openTunnel(
  proxyUrl: URL,
  host: string,
  port: number,
  trusted: ReadonlySet<string>,
  timeoutMs: number,
  done: (error: Error | null, socket?: Socket) => void,
) {
  guardedResolve(host, trusted).then(
    (ip) => {
      const authority = `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
      const headers: Record<string, string> = { host: authority };
      if (proxyUrl.username) {
        const credentials = `${decodeURIComponent(proxyUrl.username)}:${decodeURIComponent(proxyUrl.password)}`;
        headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
      }
      const request = http.request({
        host: proxyUrl.hostname,
        port: Number(proxyUrl.port || 80),
        method: 'CONNECT',
        path: authority,
        headers,
        timeout: timeoutMs,
      });
      request.once('connect', (response, socket) => {
        if (response.statusCode !== 200) {
          socket.destroy();
          return done(Object.assign(new Error(`proxy refused CONNECT (${response.statusCode})`), { code: 'EPROXY' }));
        }
        done(null, socket);
      });
      request.once('timeout', () =>
        request.destroy(Object.assign(new Error('proxy connect timeout'), { code: 'ETIMEDOUT' })),
      );
      request.once('error', (error) => done(error));
      request.end();
    },
    (error: Error) => done(error),
  );
}

export function createProxyAgents(proxy: string, trusted: ReadonlySet<string>, connectTimeoutMs: number) {
  const proxyUrl = new URL(proxy);
  const httpAgent = new http.Agent({ keepAlive: false });
  (httpAgent as unknown as { createConnection: unknown }).createConnection = (
    options: http.ClientRequestArgs,
    callback: Callback,
  ) => {
    openTunnel(proxyUrl, String(options.host), Number(options.port || 80), trusted, connectTimeoutMs, callback);
    return undefined;
  };
  const httpsAgent = new https.Agent({ keepAlive: false });
  (httpsAgent as unknown as { createConnection: unknown }).createConnection = (
    options: tls.ConnectionOptions & { host?: string; port?: number },
    callback: Callback,
  ) => {
    openTunnel(
      proxyUrl,
      String(options.host),
      Number(options.port || 443),
      trusted,
      connectTimeoutMs,
      (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no tunnel'));
        const secure = tls.connect({ ...options, socket, servername: options.servername || String(options.host) });
        callback(null, secure);
      },
    );
    return undefined;
  };
  return { http: httpAgent, https: httpsAgent };
}
