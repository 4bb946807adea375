// The single table's key schema, declared once: every entity with its partition and sort key
// templates, its GSI keys and the access patterns that query them. Adapters build every key
// through these declarations; test/unit/key-schema.test.ts pins the formats (like ElectroDB's
// offline `.params()` tests), so a changed layout is a visible, reviewed change.
//
// Templates name their parts in braces; `key(parts)` fills them. A part is never empty.

type PartsOf<T extends string> = T extends `${string}{${infer Part}}${infer Rest}` ? Part | PartsOf<Rest> : never;
/** The parts a template needs; none for a constant key. */
type Values<T extends string> = { [Part in PartsOf<T>]: string | number };

export interface KeyTemplate {
  pk: string;
  sk: string;
}

export interface EntityDeclaration {
  /** The `entity` attribute written on the item. */
  entity: string;
  table: KeyTemplate;
  gsi1?: KeyTemplate;
  gsi2?: KeyTemplate;
  /** The access patterns: what is read, and by which key. */
  access: readonly string[];
}

/** A template split once into its text and part names (text, name, text, ..., text): keys are built on every call. */
const compiled = new Map<string, string[]>();

function fill(template: string, parts: Record<string, string | number>): string {
  let pieces = compiled.get(template);
  if (!pieces) compiled.set(template, (pieces = template.split(/\{(\w+)\}/)));
  let key = pieces[0];
  for (let i = 1; i < pieces.length; i += 2) {
    const value = parts[pieces[i]];
    if (value === undefined || value === '') throw new Error(`Key part "${pieces[i]}" of "${template}" is missing`);
    key += String(value) + pieces[i + 1];
  }
  return key;
}

/** The fixed text before a template's first part: what a `begins_with` or a prefix query uses. */
const prefixOf = (template: string) => template.split('{')[0];

type IndexKeys<T, Name extends string> = T extends { pk: infer P extends string; sk: infer S extends string }
  ? {
      template: T;
      pk(parts: Values<P>): string;
      sk(parts: Values<S>): string;
      keys(parts: Values<P> & Values<S>): Record<`${Name}pk` | `${Name}sk`, string>;
    }
  : undefined;

function indexKeys(template: KeyTemplate | undefined, name: 'gsi1' | 'gsi2') {
  if (!template) return undefined;
  return {
    template,
    pk: (parts: Record<string, string | number>) => fill(template.pk, parts),
    sk: (parts: Record<string, string | number>) => fill(template.sk, parts),
    keys: (parts: Record<string, string | number>) => ({
      [`${name}pk`]: fill(template.pk, parts),
      [`${name}sk`]: fill(template.sk, parts),
    }),
  };
}

function declare<const D extends EntityDeclaration>(declaration: D) {
  const { table } = declaration;
  return {
    ...declaration,
    key: (parts: Values<D['table']['pk']> & Values<D['table']['sk']>) => ({
      pk: fill(table.pk, parts as Record<string, string>),
      sk: fill(table.sk, parts as Record<string, string>),
    }),
    pk: (parts: Values<D['table']['pk']>) => fill(table.pk, parts as Record<string, string>),
    sk: (parts: Values<D['table']['sk']>) => fill(table.sk, parts as Record<string, string>),
    skPrefix: prefixOf(table.sk),
    gsi1: indexKeys(declaration.gsi1, 'gsi1') as IndexKeys<D['gsi1'], 'gsi1'>,
    gsi2: indexKeys(declaration.gsi2, 'gsi2') as IndexKeys<D['gsi2'], 'gsi2'>,
  };
}

export const SCHEMA = {
  apiKey: declare({
    entity: 'apiKey',
    table: { pk: 'APIKEY#{keyHash}', sk: 'APIKEY' },
    gsi1: { pk: 'APIKEYS', sk: '{org}#{createdAt}#{keyId}' },
    gsi2: { pk: 'APIKEYID#{keyId}', sk: 'APIKEY' },
    access: [
      'authenticate: GetItem by the key hash',
      "list an organization's keys: gsi1 APIKEYS begins_with <org>#",
      'revoke by id: gsi2',
    ],
  }),
  organization: declare({
    entity: 'organization',
    table: { pk: 'ORG#{org}', sk: 'ORG' },
    access: ['rate-limit override, affiliate device id: GetItem'],
  }),
  developmentKeyClaim: declare({
    entity: 'developmentKeyClaim',
    table: { pk: 'SYSTEM', sk: 'DEVELOPMENT_KEY' },
    access: ['first start mints one development key: conditional Put'],
  }),
  rateBucket: declare({
    entity: 'rateBucket',
    table: { pk: 'RATE#{bucketId}', sk: 'RATE' },
    access: ['token bucket per key: conditional Update (GCRA theoretical arrival time)'],
  }),
  hostGate: declare({
    entity: 'hostGate',
    table: { pk: 'HOSTGATE#{host}', sk: 'GATE' },
    access: ["a host's next allowed start, Retry-After pause and in-flight leases: conditional Update, GetItem"],
  }),
  usageCounter: declare({
    entity: 'usageCounter',
    table: { pk: 'USAGE#{org}', sk: 'H#{hour}#{path}' },
    access: ['count a call: Update ADD', "an organization's usage over a period: Query sk >= H#<first hour>"],
  }),
  vendor: declare({
    entity: 'vendor',
    table: { pk: 'VENDOR#{vendor}', sk: 'VENDOR' },
    gsi1: { pk: 'VENDORS', sk: '{vendor}' },
    access: ['one vendor: GetItem', 'every vendor: gsi1 VENDORS'],
  }),
  execution: declare({
    entity: 'execution',
    table: { pk: 'EXEC#{id}', sk: 'EXEC' },
    gsi1: { pk: 'EXECS#{org}#{group}', sk: '{createdAt}#{id}' },
    gsi2: { pk: 'EXECS#{org}#{group}#{status}', sk: '{createdAt}#{id}' },
    access: ['status: GetItem', "an organization's executions newest first: gsi1", '... with a status filter: gsi2'],
  }),
  executionDeadline: declare({
    entity: 'executionDeadline',
    table: { pk: 'EXECS#ACTIVE#{shard}', sk: '{deadline}#{id}' },
    access: [
      'reaper (maintenance): Query each shard for sk <= now',
      'reaper, executions waiting for a crawl: Query each shard, filter attribute_exists(waiting_for)',
    ],
  }),
  urlEntry: declare({
    entity: 'urlEntry',
    table: { pk: 'EXEC#{executionId}', sk: 'URL#{index}' },
    access: ["an execution's results page: Query sk BETWEEN URL#<from> AND URL#9999999", "a batch's entries: BatchGet"],
  }),
  urlPlan: declare({
    entity: 'urlPlan',
    table: { pk: 'EXEC#{executionId}', sk: 'PLAN#{chunk}' },
    access: [
      "an execution's planned entries, PLAN_CHUNK indices an item: written at start in one BatchWrite; read beside the entries (BatchGet, or Query sk BETWEEN PLAN#<chunk> AND URL#9999999)",
    ],
  }),
  batchClaim: declare({
    entity: 'batchClaim',
    table: { pk: 'EXEC#{executionId}', sk: 'BATCH#{batchId}' },
    access: ['claim a batch: conditional Put; read the winner: GetItem'],
  }),
  product: declare({
    entity: 'product',
    table: { pk: 'PRODUCT#{urlHash}', sk: 'COUNTRY#{country}' },
    gsi1: { pk: 'PRODUCTS#{vendor}', sk: '{updatedAt}#{urlHash}#{country}' },
    gsi2: { pk: 'PRODUCTS#{shard}', sk: '{updatedAt}#{urlHash}#{country}' },
    access: [
      'stored record for reuse: GetItem / BatchGet',
      "a vendor's feed: gsi1 newest first",
      'all-vendor feed and search catch-up: gsi2 each of PRODUCT_FEED_SHARDS shards (and the unsharded PRODUCTS of older records), merged in sort-key order',
    ],
  }),
  productFirstSeen: declare({
    entity: 'productFirstSeen',
    table: { pk: 'PRODUCT#{urlHash}', sk: 'FIRST_SEEN' },
    access: [
      'first sighting of a product URL: conditional Put (who writes it first counts the product for its vendor)',
    ],
  }),
  listing: declare({
    entity: 'listing',
    table: { pk: 'LISTING#{vendor}', sk: 'U#{url}' },
    gsi2: { pk: 'LISTINGS#{shard}', sk: '{updatedAt}#{urlHash}' },
    access: [
      'search catch-up (the change feed of listings): gsi2 each of LISTING_FEED_SHARDS shards, sk > the cursor, oldest first',
    ],
  }),
  listingGone: declare({
    entity: 'listingGone',
    table: { pk: 'LISTINGGONE#{vendor}', sk: 'U#{urlHash}' },
    gsi2: { pk: 'LISTINGS#{shard}', sk: '{updatedAt}#{urlHash}' },
    access: [
      'a listing a re-crawl removed, in the same feed shard as the listing: search drops it (catch-up reads it in order)',
    ],
  }),
  collection: declare({
    entity: 'collection',
    table: { pk: 'LCOLL#{vendor}', sk: 'C#{collection}' },
    access: ["a vendor's collections (few): Query the partition, sorted by products_total in memory"],
  }),
  listingAnchor: declare({
    entity: 'listingAnchor',
    table: { pk: 'LANCHOR#{vendor}#{slot}#{name}', sk: 'A#{k}' },
    access: [
      "page N of a vendor's listings: GetItem of the anchor at or before the offset, then Query LISTING#<vendor> from its sk (<= 100 + page_size items)",
    ],
  }),
  listingMemberChunk: declare({
    entity: 'listingMemberChunk',
    table: { pk: 'LMEMBERS#{vendor}#{slot}#{collection}', sk: 'A#{k}' },
    access: [
      "page N of a collection's listings: BatchGet of the one or two chunks of 100 URLs holding it, then BatchGet of its listings",
    ],
  }),
  catalogHead: declare({
    entity: 'catalogHead',
    table: { pk: 'CATALOG#{vendor}', sk: 'HEAD' },
    access: ['live index slot and totals of a vendor: GetItem on every listings/collections read'],
  }),
  crawlPlan: declare({
    entity: 'crawlPlan',
    table: { pk: 'EXEC#{id}', sk: 'CRAWL#PLAN' },
    access: ["a crawl's method, sources and waves: GetItem/Put by its steps"],
  }),
  crawlPage: declare({
    entity: 'crawlPage',
    table: { pk: 'EXEC#{id}', sk: 'CRAWL#PAGE#{seq}#{n}' },
    access: ["where each paged source ended: BatchGet of the last wave's pages by the planner"],
  }),
  crawlMemberPage: declare({
    entity: 'crawlMemberPage',
    table: { pk: 'EXEC#{id}', sk: 'CRAWL#MEM#{collection}#{seq}#{n}' },
    access: [
      "one collection page's URLs as a crawl read it: Query begins_with CRAWL#MEM#<collection># at the crawl's end",
    ],
  }),
  idempotencyRecord: declare({
    entity: 'idempotencyRecord',
    table: { pk: 'IDEMPOTENCY#{key}', sk: 'IDEMPOTENCY' },
    access: [
      'a start with an Idempotency-Key (Powertools idempotency): conditional Put of the in-progress record, Update with the response, Delete when the start failed, consistent GetItem of an existing one; expiresAt is the TTL attribute',
    ],
  }),
  crawlWaiter: declare({
    entity: 'crawlWaiter',
    table: { pk: 'EXEC#{id}', sk: 'CRAWL#WAITER#{executionId}' },
    access: ['vendor-mode extractions waiting for a crawl: Query begins_with CRAWL#WAITER# when it ends'],
  }),
  webhookSecret: declare({
    entity: 'webhookSecret',
    table: { pk: 'ORG#{org}', sk: 'WEBHOOK#SECRET' },
    access: ["an organization's signing secret: GetItem; created on first use by a conditional Put; rotated by Put"],
  }),
  webhookSubscription: declare({
    entity: 'webhookSubscription',
    table: { pk: 'WEBHOOK#{executionId}', sk: 'SUB' },
    access: [
      "an execution's webhook: consistent GetItem on each terminal transition and (cached) progress; its progress slot: conditional Update",
    ],
  }),
  webhookDelivery: declare({
    entity: 'webhookDelivery',
    table: { pk: 'WEBHOOK#{executionId}', sk: 'DELIVERY#{deliveryId}' },
    // Sparse: only unsettled deliveries (pending, retrying) carry gsi2 keys; settling removes them.
    gsi2: { pk: 'WEBHOOKS#UNSETTLED#{shard}', sk: '{createdAt}#{deliveryId}' },
    access: [
      'one event: conditional Put (once per delivery id); each attempt: GetItem + conditional Update',
      "an execution's delivery log: Query begins_with DELIVERY#",
      'local restart (in-memory queue lost): unsettled deliveries, gsi2 each of WEBHOOK_UNSETTLED_SHARDS shards',
    ],
  }),
  changeEntry: declare({
    entity: 'changeEntry',
    table: { pk: 'CHANGE#{log}', sk: 'SEQ#{seq}' },
    gsi2: { pk: 'CHANGES#{vendor}#{shard}', sk: '{seenAt}#{log}#{seq}' },
    access: [
      "a product's (or listing's) change log: conditional Put of the next entry, Query newest first for its head",
      "a vendor's change feed: gsi2 each of CHANGE_FEED_SHARDS shards, sk > the cursor, merged in sort-key order",
    ],
  }),
  vendorAccess: declare({
    entity: 'vendorAccess',
    table: { pk: 'ORG#{org}', sk: 'CHANGEVENDOR#{vendor}' },
    access: [
      "an organization extracted or crawled a vendor (it sees the vendor's changes since): conditional Put, GetItem, Query begins_with CHANGEVENDOR#",
    ],
  }),
  changeSubscription: declare({
    entity: 'changeSubscription',
    table: { pk: 'ORG#{org}', sk: 'CHANGESUB#{id}' },
    gsi1: { pk: 'CHANGESUBS', sk: '{id}' },
    access: [
      "an organization's change-feed subscriptions: Query begins_with CHANGESUB#; one: GetItem; its cursor and delivery in flight: conditional Update",
      'every subscription (dispatch after a change, after a restart): gsi1 CHANGESUBS',
    ],
  }),
} as const;

/** Unsettled webhook deliveries spread over this many gsi2 partitions. */
export const WEBHOOK_UNSETTLED_SHARDS = 4;

/**
 * Products' change feed spreads over this many gsi2 partitions (a URL's shard from its hash): a
 * partition takes about 1,000 writes/s, an extraction day's batches write several times that.
 */
export const PRODUCT_FEED_SHARDS = 4;
/** The one gsi2 partition records written before the feed was sharded still sit in (read, never written). */
export const UNSHARDED_PRODUCT_FEED_PK = 'PRODUCTS';

/** A vendor's change events spread over this many gsi2 partitions (a URL's shard from its hash). */
export const CHANGE_FEED_SHARDS = 4;

/** Listings' change feed spreads over this many gsi2 partitions (a crawl writes thousands at once). */
export const LISTING_FEED_SHARDS = 4;

/** Executions' URL entries sort by a zero-padded index so a page is one range query. */
export const urlIndexPart = (index: number) => String(index).padStart(7, '0');

/** Plan chunks sort by a zero-padded chunk number (index / PLAN_CHUNK), before every URL# entry. */
export const planChunkPart = (chunk: number) => String(chunk).padStart(5, '0');
