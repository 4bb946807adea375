// The change feed: change logs written beside product records and listings, the organization's
// feed (GET /v2/changes) and its subscriptions, delivered through the webhooks (one implementation:
// signing, retries, the delivery log and the webhook-deliveries queue).
import { CHANGE_FEED_LAG_MS, dynamoChangeFeed } from '../adapters/dynamodb/changes';
import { dynamoChangeSubscriptions } from '../adapters/dynamodb/changes-subscriptions';
import { createChanges, type Changes } from '../domain/changes/service';
import type { ChangeFeedStore } from '../ports/changes';
import { logger } from '../observability/logger';
import { capability, type Container } from './container';
import { vendorKey } from '../domain/extraction/url';
import { webhooksOf } from './webhooks';

export const changesOf = capability((base): Changes => {
  const webhooks = webhooksOf(base);
  return createChanges({
    feed: changeLogsOf(base),
    subscriptions: dynamoChangeSubscriptions(base.clients.documents, base.config.tableName),
    deliveries: {
      sendOwned: (delivery) => webhooks.sendOwned(delivery),
      ownedDelivery: (owner, id) => webhooks.ownedDelivery(owner, id),
      resend: (record) => webhooks.resend(record),
      ownedLog: (owner) => webhooks.ownedLog(owner),
      refusal: (url) => webhooks.refusal(url),
    },
    now: () => base.clock.now(),
    warn: (message, context) => logger.warn(message, context),
  });
});

/**
 * The change logs the product and listing stores append to. Once an observation recorded a
 * change, the subscriptions of its vendor send what waits, after the feed's lag (a read stops
 * that long before now); a send lost here is made by the next settle, change, restart or reaper.
 */
export const changeLogsOf = capability((base): ChangeFeedStore => {
  const store = dynamoChangeFeed(base.clients.documents, base.config.tableName, () => base.clock.now().getTime());
  return {
    ...store,
    async append(observations) {
      const heads = await store.append(observations);
      const vendors = new Set(observations.filter((o, i) => heads[i].seq !== (o.hint?.seq ?? 0)).map((o) => o.vendor));
      if (vendors.size)
        setTimeout(
          () =>
            changesOf(base)
              .changed(vendors)
              .catch((error: Error) => logger.warn('change feed dispatch failed', { error: error.message })),
          CHANGE_FEED_LAG_MS + 50,
        );
      return heads;
    },
  };
});

/**
 * A synchronous extraction (legacy /api/product(s)) lets the organization see the changes of the
 * URLs' vendors from now on, as a job's start does.
 */
export function grantUrlVendors(base: Container, org: string, urls: readonly string[]): Promise<void> {
  const vendors = new Set(urls.flatMap((url) => vendorKey(url) ?? []));
  return changesOf(base).grant(org, [...vendors]);
}
