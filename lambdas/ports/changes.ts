// The change feed's seams: the append-only change logs and the vendor feed over them, which
// organizations may see which vendor, and the subscriptions that deliver the feed as webhooks.
import type { ChangeEntry, ChangeSource, ChangeType, WatchState } from '../domain/changes/model';

/** A log's head as the record or listing after it keeps it: where the next observation compares from. */
export interface LogHead {
  seq: number;
  state: WatchState;
}

export interface Observation {
  url: string;
  vendor: string;
  /** `<urlHash>#<country>` (a product record) or `<urlHash>#listing`. */
  log: string;
  country: string | null;
  source: ChangeSource;
  /** The head the stored record carries; null when none was stored. */
  hint: LogHead | null;
  observed: WatchState;
  /** A first observation is a change: a listing a re-crawl (not a vendor's first crawl) found. */
  announceNew?: boolean;
}

export interface VendorGrant {
  vendor: string;
  /** When the organization first extracted or crawled the vendor: it sees changes from then on. */
  since: string;
}

export interface ChangeFeedStore {
  /** Records each observation's changes once (see the adapter); the heads to store with the records. */
  append(observations: readonly Observation[]): Promise<LogHead[]>;
  /**
   * The vendors' entries after each shard's cursor (`cursors['<vendor>#<shard>']`, a sort key;
   * else from `start`, a timestamp), oldest first, merged; `cursors` as they moved.
   */
  read(query: {
    partitions: ReadonlyArray<{ vendor: string; start: string; cursors: Record<string, string> }>;
    limit: number;
  }): Promise<{ entries: ChangeEntry[]; cursors: Record<string, string>; more: boolean }>;
  /** Grants the organization the vendors' changes (the first grant's time stays). */
  grant(org: string, vendors: readonly string[], at: string): Promise<void>;
  grants(org: string): Promise<VendorGrant[]>;
}

export interface ChangeSubscription {
  id: string;
  org: string;
  url: string;
  events: string[];
  /** null: every vendor the organization may see. */
  vendors: string[] | null;
  types: ChangeType[] | null;
  created_at: string;
  /** The feed position delivered up to (the next delivery starts after it). */
  cursor: string | null;
  /** The delivery the next one waits for (deliveries go one at a time: in order). */
  in_flight: string | null;
  /** Its body, kept until it is sent: a dispatch that stopped after moving the cursor sends it then. */
  in_flight_body: string | null;
}

export interface ChangeSubscriptionStore {
  create(subscription: ChangeSubscription): Promise<void>;
  get(org: string, id: string): Promise<ChangeSubscription | null>;
  list(org: string): Promise<ChangeSubscription[]>;
  /** Every subscription of every organization (bounded). */
  all(limit: number): Promise<ChangeSubscription[]>;
  /** false when it did not exist. */
  delete(org: string, id: string): Promise<boolean>;
  /** Moves the cursor and the delivery in flight, only from `fromCursor`; false when another dispatch moved it. */
  advance(
    org: string,
    id: string,
    fromCursor: string | null,
    cursor: string,
    inFlight: { id: string; body: string } | null,
  ): Promise<boolean>;
}
