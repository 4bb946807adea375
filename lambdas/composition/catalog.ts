// The product records extractions store (and count for their vendor).
import { dynamoProductStore } from '../adapters/dynamodb/products';
import { createProductCatalog } from '../domain/products/catalog';
import { capability } from './container';
import { changeLogsOf } from './changes';

export const productCatalogOf = capability((base) =>
  createProductCatalog({
    store: dynamoProductStore(base.clients.documents, base.config.tableName, changeLogsOf(base)),
    vendors: base.vendors,
  }),
);
