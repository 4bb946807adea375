// Product feeds for merchant platforms (Google Merchant Center): read-only over the stored records.
import { dynamoProductPages } from '../adapters/dynamodb/product-pages';
import { createMerchantFeed } from '../domain/feeds/service';
import { capability } from './container';

export const merchantFeedOf = capability((base) =>
  createMerchantFeed({
    pages: dynamoProductPages(base.clients.documents, base.config.tableName),
    vendors: base.vendors,
  }),
);
