// What the CDK stack and the OpenSearch adapter must agree on (`-c pds:search=opensearch`).

/** The OpenSearch index that holds the catalog's search documents. */
export const SEARCH_INDEX_NAME = 'products';

/** Key prefixes of the table items that change search (products, listings, removed-listing markers): the stream filter passes only these. */
export const SEARCH_INDEXED_KEY_PREFIXES = ['PRODUCT#', 'LISTING#', 'LISTINGGONE#'] as const;
