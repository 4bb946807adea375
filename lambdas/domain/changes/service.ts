// The change feed as the API and the webhooks see it: an organization reads the changes of the
// vendors it extracted or crawled (from the time it first did), by cursor, in the order they were
// seen; its subscriptions get them as signed `product.changed` deliveries, one page at a time per
// subscription (the next only once the one before is settled), so a product's changes arrive in
// order. A page's delivery id comes from the subscription and the cursor it starts at, and the
// cursor moves (with the page's body) by a conditional write before the delivery is created:
// a dispatch that stops anywhere is finished by the next one, and no page is sent twice.
import { createHash, randomBytes } from 'node:crypto';
import { invalid, notFound } from '../errors';
import type { ChangeFeedStore, ChangeSubscription, ChangeSubscriptionStore, VendorGrant } from '../../ports/changes';
import type { DeliveryRecord } from '../webhooks/model';
import type { OwnedDelivery } from '../webhooks/service';
import { CHANGE_TYPES, type ChangeEvent, type ChangeType, eventsOf, PRODUCT_CHANGED } from './model';

/** What the change feed needs of the webhooks (lambdas/domain/webhooks/service.ts). */
export interface ChangeDeliveries {
  sendOwned(delivery: OwnedDelivery): Promise<boolean>;
  ownedDelivery(owner: string, deliveryId: string): Promise<DeliveryRecord | null>;
  resend(record: DeliveryRecord & { body: string }): Promise<void>;
  ownedLog(owner: string): Promise<DeliveryRecord[]>;
  /** Why a receiver may not be used, or null. */
  refusal(url: string): Promise<string | null>;
}

export interface ChangesDeps {
  feed: ChangeFeedStore;
  subscriptions: ChangeSubscriptionStore;
  deliveries: ChangeDeliveries;
  now?: () => Date;
  warn?: (message: string, context: Record<string, unknown>) => void;
}

/** Entries (observations) one delivery carries. */
const DELIVERY_PAGE = 100;
/** A delivery created this long ago without an attempt lost its first send: it is sent again. */
const LOST_SEND_MS = 60_000;
export const MAX_SUBSCRIPTIONS_PER_ORG = 20;

interface Cursor {
  /** `<vendor>#<shard>` -> the last sort key read. */
  p: Record<string, string>;
  /** Where a partition without a key starts (a subscription's creation). */
  s?: string;
}

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decode(text: string | null | undefined): Cursor {
  if (!text) return { p: {} };
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (parsed && typeof parsed.p === 'object' && parsed.p) return parsed;
  } catch {
    // reported below
  }
  throw invalid('cursor is not a cursor this operation returned', { parameter: 'cursor' });
}

export interface ChangePage {
  events: ChangeEvent[];
  next_cursor: string;
  has_more: boolean;
}

export type Changes = ReturnType<typeof createChanges>;

export function createChanges(deps: ChangesDeps) {
  const { feed, subscriptions } = deps;
  const now = deps.now ?? (() => new Date());
  const warn = deps.warn ?? (() => undefined);

  /** The organization's vendors (all, or the one asked for: 404 when it may not see it). */
  async function visible(org: string, vendors: readonly string[] | null): Promise<VendorGrant[]> {
    const grants = await feed.grants(org);
    if (!vendors) return grants;
    const wanted = grants.filter((grant) => vendors.includes(grant.vendor));
    if (vendors.length === 1 && !wanted.length)
      throw notFound(`No changes of ${vendors[0]}: your organization has not extracted or crawled it`);
    return wanted;
  }

  async function page(
    org: string,
    query: { vendors: readonly string[] | null; since?: string; cursor?: string | null; types?: ChangeType[] | null },
    limit: number,
  ): Promise<ChangePage> {
    const cursor = decode(query.cursor);
    const grants = await visible(org, query.vendors);
    const floor =
      [query.since, cursor.s]
        .filter((t): t is string => !!t)
        .sort()
        .pop() ?? '';
    const partitions = grants.map((grant) => ({
      vendor: grant.vendor,
      start: floor > grant.since ? floor : grant.since,
      cursors: cursor.p,
    }));
    if (!partitions.length) return { events: [], next_cursor: encode(cursor), has_more: false };
    const read = await feed.read({ partitions, limit });
    const types = query.types?.length ? new Set(query.types) : null;
    const events = read.entries.flatMap(eventsOf).filter((event) => !types || types.has(event.type));
    return { events, next_cursor: encode({ ...cursor, p: { ...cursor.p, ...read.cursors } }), has_more: read.more };
  }

  const deliveryIdOf = (subscription: ChangeSubscription) =>
    `whd_${createHash('sha256')
      .update(`${subscription.id}\n${PRODUCT_CHANGED}\n${subscription.cursor ?? ''}`)
      .digest('hex')
      .slice(0, 32)}`;

  /** True when the subscription's delivery in flight is not settled yet (sent again when its send was lost). */
  async function waiting(subscription: ChangeSubscription): Promise<boolean> {
    if (!subscription.in_flight) return false;
    const record = await deps.deliveries.ownedDelivery(subscription.id, subscription.in_flight);
    const body = subscription.in_flight_body ?? '';
    if (!record) {
      await deps.deliveries.sendOwned({
        owner: subscription.id,
        org: subscription.org,
        event: PRODUCT_CHANGED,
        url: subscription.url,
        delivery_id: subscription.in_flight,
        body,
      });
      return true;
    }
    if (record.state === 'delivered' || record.state === 'failed') return false;
    if (!record.attempts.length && now().getTime() - Date.parse(record.created_at) > LOST_SEND_MS)
      await deps.deliveries.resend({ ...record, body });
    return true;
  }

  /** Sends the subscription's next page unless one is in flight; 'sent', 'waiting' or 'idle'. */
  async function dispatch(subscription: ChangeSubscription): Promise<'sent' | 'waiting' | 'idle'> {
    if (await waiting(subscription)) return 'waiting';
    const next = await page(
      subscription.org,
      { vendors: subscription.vendors, cursor: subscription.cursor, types: subscription.types },
      DELIVERY_PAGE,
    );
    if (!next.events.length) {
      if (next.next_cursor !== subscription.cursor)
        await subscriptions.advance(subscription.org, subscription.id, subscription.cursor, next.next_cursor, null);
      return 'idle';
    }
    const deliveryId = deliveryIdOf(subscription);
    const body = JSON.stringify({
      id: deliveryId,
      event: PRODUCT_CHANGED,
      created_at: now().toISOString(),
      data: { subscription_id: subscription.id, changes: next.events, next_cursor: next.next_cursor },
      metadata: null,
    });
    const inFlight = { id: deliveryId, body };
    if (
      !(await subscriptions.advance(subscription.org, subscription.id, subscription.cursor, next.next_cursor, inFlight))
    )
      return 'waiting';
    await deps.deliveries.sendOwned({
      owner: subscription.id,
      org: subscription.org,
      event: PRODUCT_CHANGED,
      url: subscription.url,
      delivery_id: deliveryId,
      body,
    });
    return 'sent';
  }

  /** Dispatches each subscription (a failure only warns: the next settle, change or restart tries again). */
  async function dispatchEach(list: readonly ChangeSubscription[]) {
    await Promise.all(
      list.map((subscription) =>
        dispatch(subscription).catch((error: Error) =>
          warn('change feed dispatch failed', { subscriptionId: subscription.id, error: error.message }),
        ),
      ),
    );
  }

  return {
    /** GET /v2/changes: a page of the organization's changes, oldest first. */
    read(
      org: string,
      query: { vendor?: string; since?: string; cursor?: string; types?: ChangeType[]; pageSize: number },
    ): Promise<ChangePage> {
      return page(org, { ...query, vendors: query.vendor ? [query.vendor] : null }, query.pageSize);
    },

    /** The organization may see these vendors' changes from now on (an extraction's or a crawl's start). */
    grant: (org: string, vendors: readonly string[]) =>
      vendors.length ? feed.grant(org, vendors, now().toISOString()) : Promise.resolve(),

    async subscribe(
      org: string,
      request: { url: string; events: string[]; vendors?: string[]; types?: ChangeType[] },
    ): Promise<ChangeSubscription> {
      const refusal = await deps.deliveries.refusal(request.url);
      if (refusal) throw invalid(`url ${refusal}`, { parameter: 'url' });
      if ((await subscriptions.list(org)).length >= MAX_SUBSCRIPTIONS_PER_ORG)
        throw invalid(`An organization has at most ${MAX_SUBSCRIPTIONS_PER_ORG} subscriptions; delete one first`);
      const created = now().toISOString();
      // Deliveries start at the subscription: what was seen before is read with GET /v2/changes.
      const start: Cursor = { p: {}, s: created };
      const subscription: ChangeSubscription = {
        id: `whs_${randomBytes(12).toString('hex')}`,
        org,
        url: request.url,
        events: [PRODUCT_CHANGED],
        vendors: request.vendors?.length ? [...new Set(request.vendors)] : null,
        types: request.types?.length ? [...new Set(request.types)].filter((t) => CHANGE_TYPES.includes(t)) : null,
        created_at: created,
        cursor: encode(start),
        in_flight: null,
        in_flight_body: null,
      };
      await subscriptions.create(subscription);
      return subscription;
    },

    list: (org: string) => subscriptions.list(org),

    async find(org: string, id: string): Promise<ChangeSubscription> {
      const found = await subscriptions.get(org, id);
      if (!found) throw notFound(`Subscription ${id} not found`);
      return found;
    },

    async unsubscribe(org: string, id: string): Promise<void> {
      if (!(await subscriptions.delete(org, id))) throw notFound(`Subscription ${id} not found`);
    },

    async deliveries(org: string, id: string): Promise<DeliveryRecord[]> {
      if (!(await subscriptions.get(org, id))) throw notFound(`Subscription ${id} not found`);
      return deps.deliveries.ownedLog(id);
    },

    /** After changes were recorded: each subscription that may see one of these vendors sends what waits. */
    async changed(vendors: ReadonlySet<string>): Promise<void> {
      const all = await subscriptions.all(1_000);
      const grants = new Map<string, Set<string>>();
      const interested: ChangeSubscription[] = [];
      for (const subscription of all) {
        if (subscription.vendors && !subscription.vendors.some((v) => vendors.has(v))) continue;
        if (!grants.has(subscription.org))
          grants.set(subscription.org, new Set((await feed.grants(subscription.org)).map((g) => g.vendor)));
        if ([...vendors].some((v) => grants.get(subscription.org)!.has(v))) interested.push(subscription);
      }
      await dispatchEach(interested);
    },

    /** A subscription's delivery was settled: its next page. */
    async settled(subscriptionId: string, org: string): Promise<void> {
      const subscription = await subscriptions.get(org, subscriptionId);
      if (subscription) await dispatchEach([subscription]);
    },

    /** Every subscription sends what waits (after a restart, on a schedule). */
    dispatchAll: async () => dispatchEach(await subscriptions.all(1_000)),
  };
}
