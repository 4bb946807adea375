// `npm run bench -- affiliate`: links per second for 100-URL requests through HTTP (the local
// runtime: auth, rate limit, metering, validation, the device id read, the links), beside a
// plain in-process loop that links the same 100 URLs with the same directory and template.
// Bounded in count and time; loopback only.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../lambdas/local/service';
import { BUILT_IN_MERCHANTS, createMerchantDirectory } from '../../lambdas/domain/affiliate/merchants';
import { compileLinkTemplate, DEFAULT_LINK_TEMPLATE } from '../../lambdas/domain/affiliate/template';
import { createAffiliate } from '../../lambdas/domain/affiliate/links';

const REQUESTS = 400;
const CONCURRENCY = 8;
const LOOP_ROUNDS = 2000;
const MAX_MS = 120_000;
const KEY = 'bench-affiliate-key-0123456789';

/** 100 URLs as a publisher sends them: mostly merchants (www., alternates, no scheme), some not, some stand-down, a few malformed. */
function hundredUrls(): string[] {
  const urls: string[] = [];
  for (let i = 0; i < 100; i++) {
    const merchant = BUILT_IN_MERCHANTS[i % BUILT_IN_MERCHANTS.length];
    const host = [merchant.domain, `www.${merchant.domain}`, merchant.alternateDomains[0] ?? merchant.domain][i % 3];
    if (i % 10 === 7) urls.push(`https://shop-${i}.unknown-store.example/products/item-${i}`);
    else if (i % 10 === 8) urls.push(`https://${host}/products/item-${i}?afsrc=1`);
    else if (i % 25 === 9) urls.push(`not a url ${i}`);
    else if (i % 5 === 4) urls.push(`${host}/products/item-${i}?color=blue&size=${i}`);
    else urls.push(`https://${host}/products/item-${i}?utm_source=newsletter&variant=${1000 + i}`);
  }
  return urls;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: 10_000,
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

export default async function main(): Promise<void> {
  const urls = hundredUrls();

  // 1. The plain in-process loop: the same decisions and links, no HTTP, no store.
  const affiliate = createAffiliate({
    merchants: createMerchantDirectory(BUILT_IN_MERCHANTS),
    template: compileLinkTemplate(DEFAULT_LINK_TEMPLATE),
    devices: { get: async () => 'bench-device', create: async () => 'bench-device' },
    now: () => new Date(),
  });
  let loopLinks = 0;
  const loopStart = process.hrtime.bigint();
  for (let round = 0; round < LOOP_ROUNDS; round++) {
    for (const url of urls) if (affiliate.linkFor(url, 'bench-device')) loopLinks++;
  }
  const loopSeconds = Number(process.hrtime.bigint() - loopStart) / 1e9;
  const perRequestSuccess = loopLinks / LOOP_ROUNDS;

  // 2. Through HTTP: the local runtime on a temporary data dir.
  const dataDir = mkdtempSync(join(tmpdir(), 'pds-bench-affiliate-'));
  const service = await startLocalService({
    port: 0,
    dataDir,
    bootstrapKeys: `${KEY}:bench-org:affiliate`,
    env: { PDS_RATE_LIMIT: '100000:100000' },
    log: () => undefined,
  });
  const body = JSON.stringify({ urls });
  const latencies: number[] = [];
  let links = 0;
  let processed = 0;
  let errors = 0;
  try {
    // Warm-up: the device id is created once, the handler module loads.
    await post(`${service.url}/v1/affiliate`, body);
    const deadline = Date.now() + MAX_MS;
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS && Date.now() < deadline) {
          const path = next++ % 2 === 0 ? '/v1/affiliate' : '/v2/affiliate';
          const t0 = process.hrtime.bigint();
          const reply = await post(`${service.url}${path}`, body);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (reply.status !== 200) {
            errors++;
            continue;
          }
          const parsed = JSON.parse(reply.text);
          const counts = parsed.meta ?? parsed;
          links += counts.successful;
          processed += counts.total_processed;
        }
      }),
    );
    const httpSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);

    console.log(
      `affiliate links: ${urls.length}-URL requests (${perRequestSuccess} linkable, the rest unsupported, stand-down or malformed)`,
    );
    console.log(
      `machine: load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (client and server share the cores)`,
    );
    console.log('');
    console.log('| path | requests | URLs/s | links/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| HTTP POST /v1+/v2/affiliate (concurrency ${CONCURRENCY}) | ${latencies.length} (${errors} errors) | ${Math.round(processed / httpSeconds).toLocaleString('en-US')} | ${Math.round(links / httpSeconds).toLocaleString('en-US')} | ${pct(50)} | ${pct(99)} |`,
    );
    console.log(
      `| in-process loop over the same URLs | ${LOOP_ROUNDS} rounds | ${Math.round((LOOP_ROUNDS * urls.length) / loopSeconds).toLocaleString('en-US')} | ${Math.round(loopLinks / loopSeconds).toLocaleString('en-US')} | ${((loopSeconds / LOOP_ROUNDS) * 1000).toFixed(3)} per round | |`,
    );
  } finally {
    await service.stop(1000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
