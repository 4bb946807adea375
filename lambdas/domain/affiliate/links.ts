// Affiliate links: a URL of a merchant in the network becomes a tracking link that carries the
// organization's device id; anything else is said to be unsupported, with a reason, never passed
// through as if it were tracked (the peers' silent redirect is what their users cannot detect).
import { randomUUID } from 'node:crypto';
import type { AffiliateDeviceStore } from '../../ports/affiliate';
import { parseHttpUrl } from '../extraction/url';
import type { ProductRecord } from '../extraction/types';
import type { Merchant, MerchantDirectory } from './merchants';
import { standDownSignal } from './stand-down';
import type { LinkTemplate } from './template';
import type { AffiliateReason } from './reasons';

/** One input URL's answer (DECISIONS, Affiliate results). */
export type AffiliateLinkResult =
  | { network_link: string; original_url: string; device_id: string; success: true }
  | { network_link: null; original_url: string; device_id: string; success: false; reason: AffiliateReason };

export interface AffiliateLinks {
  results: AffiliateLinkResult[];
  total_processed: number;
  successful: number;
  failed: number;
}

/** The link decision for one URL, before any device id is known. */
export type LinkDecision =
  | { ok: true; merchant: Merchant; deepLink: string }
  | { ok: false; reason: AffiliateReason; detail: string };

/** Fills `affiliate_link` on a full product record and its variants (null when not supported). */
export type RecordLinker = (record: ProductRecord) => ProductRecord;

export interface Affiliate {
  /** Malformed, stand-down, unsupported or linkable: pure, no I/O. */
  decide(url: string): LinkDecision;
  /** The tracking link for `url` with `deviceId`, or null when the URL is not supported. */
  linkFor(url: string, deviceId: string): string | null;
  /** The organization's device id: created on first use, the same for ever after. */
  deviceIdFor(org: string): Promise<string>;
  /** The operation: one result per input URL, in input order. */
  linkUrls(org: string, urls: readonly string[]): Promise<AffiliateLinks>;
  /** A linker for records served to `org` (one device id read per call, cached per process). */
  recordLinker(org: string): Promise<RecordLinker>;
}

export interface AffiliateDeps {
  merchants: MerchantDirectory;
  template: LinkTemplate;
  devices: AffiliateDeviceStore;
  now: () => Date;
  /** A new random device id; never derived from the organization or anything about a person. */
  newDeviceId?: () => string;
}

// Device ids never change, so a process may keep them for its lifetime; bounded all the same.
const DEVICE_CACHE_MAX = 10_000;

export function createAffiliate(deps: AffiliateDeps): Affiliate {
  const { merchants, template } = deps;
  const newDeviceId = deps.newDeviceId ?? (() => randomUUID().replace(/-/g, ''));
  const ownHosts = new Set([template.host]);
  const devices = new Map<string, Promise<string>>();

  const decide = (input: string): LinkDecision => {
    const parsed = parseHttpUrl(input);
    if (!parsed.ok) return { ok: false, reason: 'malformed_url', detail: parsed.problem };
    const signal = standDownSignal(parsed.url, ownHosts);
    if (signal) return { ok: false, reason: 'stand_down', detail: signal };
    const merchant = merchants.merchantFor(parsed.url.hostname);
    if (!merchant)
      return {
        ok: false,
        reason: 'merchant_not_in_network',
        detail: `${parsed.url.hostname} is not a merchant of the network`,
      };
    return { ok: true, merchant, deepLink: parsed.url.href };
  };

  const render = (decision: Extract<LinkDecision, { ok: true }>, deviceId: string) =>
    template.render({ merchant_id: decision.merchant.id, device_id: deviceId, url: decision.deepLink });

  const linkFor = (url: string, deviceId: string): string | null => {
    const decision = decide(url);
    return decision.ok ? render(decision, deviceId) : null;
  };

  const deviceIdFor = (org: string): Promise<string> => {
    let pending = devices.get(org);
    if (!pending) {
      pending = (async () =>
        (await deps.devices.get(org)) ?? deps.devices.create(org, newDeviceId(), deps.now().toISOString()))();
      if (devices.size >= DEVICE_CACHE_MAX) devices.clear();
      devices.set(org, pending);
      // A failed read is not remembered: the next call asks the store again.
      pending.catch(() => devices.delete(org));
    }
    return pending;
  };

  return {
    decide,
    linkFor,
    deviceIdFor,

    async linkUrls(org, urls) {
      const deviceId = await deviceIdFor(org);
      let successful = 0;
      const results = urls.map((original): AffiliateLinkResult => {
        const decision = decide(original);
        if (!decision.ok)
          return {
            network_link: null,
            original_url: original,
            device_id: deviceId,
            success: false,
            reason: decision.reason,
          };
        successful++;
        return { network_link: render(decision, deviceId), original_url: original, device_id: deviceId, success: true };
      });
      return { results, total_processed: urls.length, successful, failed: urls.length - successful };
    },

    async recordLinker(org) {
      const deviceId = await deviceIdFor(org);
      return (record) => ({
        ...record,
        affiliate_link: linkFor(record.url, deviceId),
        // A variant without its own URL is bought through the product's page.
        variants: record.variants.map((variant) => ({
          ...variant,
          affiliate_link: linkFor(variant.url ?? record.url, deviceId),
        })),
      });
    },
  };
}
