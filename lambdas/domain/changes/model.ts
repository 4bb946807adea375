// What the change feed watches and how two observations of a product or a listing differ: plain
// values and pure functions. The stores keep one append-only log per product URL and country (an
// extraction's records) and one per listing URL (a crawl's listings); each entry is one
// observation that differed from the one before, with its events and the state it left.
import { createHash } from 'node:crypto';
import type { ProductRecord } from '../extraction/types';
import type { FoundListing } from '../crawl/model';

export const CHANGE_TYPES = ['price', 'compare_at_price', 'availability', 'listing_added', 'listing_removed'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type ChangeSource = 'extraction' | 'crawl';

/** The webhook event of a subscription to the change feed. */
export const PRODUCT_CHANGED = 'product.changed';

/** The fields a change is about, for one product or one variant. */
interface Watched {
  price: number | null;
  compare_at_price: number | null;
  available: boolean | null;
}

export interface WatchedVariant extends Watched {
  sku: string | null;
  title: string | null;
}

/** What one observation saw of the watched fields (stored beside the record as its hint). */
export interface WatchState extends Watched {
  currency: string | null;
  /** Listings only: false once a re-crawl no longer found the listing. */
  listed?: boolean;
  /** By variant id. */
  variants: Record<string, WatchedVariant>;
}

export interface VariantRef {
  id: string;
  sku: string | null;
  title: string | null;
}

/** One event as an observation stores it. */
export interface StoredChange {
  type: ChangeType;
  variant: VariantRef | null;
  old: number | boolean | null;
  new: number | boolean | null;
}

/** One change event as the feed and the webhooks serve it. */
export interface ChangeEvent {
  id: string;
  type: ChangeType;
  vendor: string;
  url: string;
  /** The extraction's country; null for a crawl's listing. */
  country: string | null;
  source: ChangeSource;
  variant: VariantRef | null;
  old_value: number | boolean | null;
  new_value: number | boolean | null;
  currency: string | null;
  seen_at: string;
}

/** One observation that changed something: a log entry. */
export interface ChangeEntry {
  url: string;
  vendor: string;
  /** `<urlHash>#<country>` of a product record, `<urlHash>#listing` of a listing. */
  log: string;
  seq: number;
  seen_at: string;
  source: ChangeSource;
  country: string | null;
  currency: string | null;
  changes: StoredChange[];
  state: WatchState;
}

/** An observation's events are capped (a product with hundreds of variants repriced at once). */
export const MAX_CHANGES_PER_OBSERVATION = 300;

const num = (value: number | null | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function watchStateOfProduct(product: ProductRecord): WatchState {
  const variants: Record<string, WatchedVariant> = {};
  for (const variant of product.variants ?? []) {
    if (!variant?.id) continue;
    variants[variant.id] = {
      sku: variant.sku ?? null,
      title: variant.title ?? null,
      price: num(variant.price?.current_value),
      compare_at_price: num(variant.price?.compare_at_value),
      available: variant.is_available ?? null,
    };
  }
  return {
    currency: product.price?.currency ?? null,
    price: num(product.price?.current_value),
    compare_at_price: num(product.price?.compare_at_value),
    available: product.is_available ?? null,
    variants,
  };
}

export function watchStateOfListing(listing: Pick<FoundListing, 'price'> | null): WatchState {
  return {
    currency: listing?.price?.currency ?? null,
    price: num(listing?.price?.current_value),
    compare_at_price: num(listing?.price?.compare_at_value),
    available: null,
    listed: listing !== null,
    variants: {},
  };
}

function fieldChanges(before: Watched, after: Watched, variant: VariantRef | null): StoredChange[] {
  const out: StoredChange[] = [];
  // A value the page stopped stating is no change: a reading that missed it is not a new price.
  if (after.price !== null && before.price !== after.price)
    out.push({ type: 'price', variant, old: before.price, new: after.price });
  if (before.compare_at_price !== after.compare_at_price && (after.price !== null || after.compare_at_price !== null))
    out.push({ type: 'compare_at_price', variant, old: before.compare_at_price, new: after.compare_at_price });
  if (after.available !== null && before.available !== after.available)
    out.push({ type: 'availability', variant, old: before.available, new: after.available });
  return out;
}

/**
 * The events between two observations, in a stable order (the product, then its variants by id).
 * A listing that appears or disappears is that one event; a variant is compared only when both
 * observations hold it.
 */
export function diffStates(before: WatchState, after: WatchState): StoredChange[] {
  if ((before.listed ?? true) !== (after.listed ?? true))
    return [
      { type: after.listed === false ? 'listing_removed' : 'listing_added', variant: null, old: null, new: null },
    ];
  if (after.listed === false) return [];
  const out = fieldChanges(before, after, null);
  for (const id of Object.keys(after.variants).sort()) {
    const was = before.variants[id];
    if (!was) continue;
    const now = after.variants[id];
    out.push(...fieldChanges(was, now, { id, sku: now.sku, title: now.title }));
  }
  return out.slice(0, MAX_CHANGES_PER_OBSERVATION);
}

/**
 * What an observation appends to a log whose last state is `last` (null: nothing observed yet):
 * the events, or none. A first observation is no change, except a listing a re-crawl finds
 * (`announceNew`): it appeared.
 */
export function changesOf(last: WatchState | null, observed: WatchState, announceNew = false): StoredChange[] {
  if (last) return diffStates(last, observed);
  if (announceNew && observed.listed) return diffStates({ ...observed, listed: false }, observed);
  return [];
}

/** The feed's id of event `n` of an entry: the same on every read and every delivery. */
export function changeId(log: string, seq: number, n: number): string {
  const digest = createHash('sha256').update(log).digest('hex').slice(0, 20);
  return `chg_${digest}_${seq}_${n}`;
}

export function eventsOf(entry: ChangeEntry): ChangeEvent[] {
  return entry.changes.map((change, n) => ({
    id: changeId(entry.log, entry.seq, n),
    type: change.type,
    vendor: entry.vendor,
    url: entry.url,
    country: entry.country,
    source: entry.source,
    variant: change.variant,
    old_value: change.old,
    new_value: change.new,
    currency: entry.currency,
    seen_at: entry.seen_at,
  }));
}
